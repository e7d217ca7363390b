/** The reference client's settings (README, "The reference client"), read and validated once at start. */
import { type Env, httpUrl, int, list, oneOf, readSettings, SettingsError, secret, text, textOr } from '@signet/settings';

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

const schema = {
  PORT: int(1, 65535, 3001),
  SESSION_SECRET: secret(32),
  ISSUER: httpUrl('http://localhost:3000'),
  REDIRECT_URI: httpUrl('http://localhost:3001/api/auth/callback'),
  SCOPE: textOr('openid profile'),
  CLIENT_NAME: textOr('Signet example app'),
  CLIENT_URI: httpUrl('http://localhost:3001'),
  LOGO_URI: httpUrl('http://localhost:3001/logo.svg'),
  POLICY_URI: httpUrl(),
  TOS_URI: httpUrl(),
  CONTACTS: list(),
  CLIENT_ID: text(),
  CLIENT_SECRET: text(),
  DATA_DIR: textOr('./data'),
  NODE_ENV: oneOf(['development', 'production', 'test'] as const, 'development'),
};

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
