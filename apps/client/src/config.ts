/** The reference client's settings (its README lists them), read and validated once at start. */
import {
  type Env,
  httpUrl,
  int,
  list,
  oneOf,
  readSettings,
  type SettingEntry,
  SettingsError,
  secret,
  setting,
  settingEntries,
  text,
  textOr,
} from '@signet/settings';

export { SettingsError };

export type ClientConfig = {
  port: number;
  sessionSecret: string;
  issuer: string;
  redirectUri: string;
  /** Where the app lives: origin of the redirect URI, the page and the post-logout return. */
  appOrigin: string;
  scope: string;
  clientName: string;
  clientUri: string;
  logoUri: string;
  policyUri?: string;
  tosUri?: string;
  contacts: string[];
  clientId?: string;
  clientSecret?: string;
  dataDir: string;
  production: boolean;
};

const GROUP = 'Reference client';

const schema = {
  PORT: setting(int(1, 65535, 3001), { group: GROUP, default: '`3001`', description: 'listen port' }),
  SESSION_SECRET: setting(secret(32), {
    group: GROUP,
    default: 'required',
    description: '32+ characters; encrypts the session cookie (start is refused otherwise)',
  }),
  ISSUER: setting(httpUrl('http://localhost:3000'), {
    group: GROUP,
    default: '`http://localhost:3000`',
    description: 'the provider (https, or http on localhost)',
  }),
  REDIRECT_URI: setting(httpUrl('http://localhost:3001/api/auth/callback'), {
    group: GROUP,
    default: '`http://localhost:3001/api/auth/callback`',
    description: "this app's callback, as registered",
  }),
  SCOPE: setting(textOr('openid profile'), {
    group: GROUP,
    default: '`openid profile`',
    description: 'add `siwe` for the signed message',
  }),
  CLIENT_NAME: setting(textOr('Signet example app'), {
    group: GROUP,
    default: '`Signet example app`',
    description: "shown on the provider's sign-in page",
  }),
  CLIENT_URI: setting(httpUrl('http://localhost:3001'), {
    group: GROUP,
    default: '`http://localhost:3001`',
    description: "the app's home page",
  }),
  LOGO_URI: setting(httpUrl('http://localhost:3001/logo.svg'), {
    group: GROUP,
    default: '`http://localhost:3001/logo.svg`',
    description: "the app's logo (the client serves one)",
  }),
  POLICY_URI: setting(httpUrl(), {
    group: GROUP,
    default: 'none',
    description: 'the privacy policy link registered for the client',
  }),
  TOS_URI: setting(httpUrl(), { group: GROUP, default: 'none', description: 'the terms of use link registered for the client' }),
  CONTACTS: setting(list(), { group: GROUP, default: 'none', description: 'comma-separated e-mail addresses' }),
  CLIENT_ID: setting(text(), { group: GROUP, default: 'none', description: 'a pre-registered client id (skips registration)' }),
  CLIENT_SECRET: setting(text(), { group: GROUP, default: 'none', description: "that client's secret, when it is confidential" }),
  DATA_DIR: setting(textOr('./data'), { group: GROUP, default: '`./data`', description: 'where the registration is kept' }),
  NODE_ENV: setting(oneOf(['development', 'production', 'test'] as const, 'development'), {
    group: GROUP,
    default: '`development`',
    description: '`production` makes cookies Secure',
  }),
};

/** The reference client's settings with their documentation (npm run docs:settings renders them). */
export const settingsReference = (): SettingEntry[] => settingEntries(schema);

export function loadClientConfig(env: Env = process.env): ClientConfig {
  const s = readSettings(schema, env);
  if (!s.SCOPE.split(' ').includes('openid'))
    throw new SettingsError(`SCOPE: must include openid (got ${JSON.stringify(s.SCOPE)})`);
  for (const contact of s.CONTACTS) {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact))
      throw new SettingsError(`CONTACTS: ${JSON.stringify(contact)} is not an e-mail address`);
  }
  if (s.CLIENT_SECRET && !s.CLIENT_ID) throw new SettingsError('CLIENT_SECRET: is set without CLIENT_ID');
  const issuer = new URL(s.ISSUER as string);
  if (issuer.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)) {
    throw new SettingsError(`ISSUER: must be https (http only for localhost) (got ${JSON.stringify(s.ISSUER)})`);
  }
  const redirect = new URL(s.REDIRECT_URI as string);
  return {
    port: s.PORT,
    sessionSecret: s.SESSION_SECRET as string,
    issuer: (s.ISSUER as string).replace(/\/$/, ''),
    redirectUri: redirect.href,
    appOrigin: redirect.origin,
    scope: s.SCOPE,
    clientName: s.CLIENT_NAME,
    clientUri: s.CLIENT_URI as string,
    logoUri: s.LOGO_URI as string,
    policyUri: s.POLICY_URI,
    tosUri: s.TOS_URI,
    contacts: s.CONTACTS,
    clientId: s.CLIENT_ID,
    clientSecret: s.CLIENT_SECRET,
    dataDir: s.DATA_DIR,
    production: s.NODE_ENV === 'production',
  };
}
