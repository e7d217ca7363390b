/** Application C's settings, read and validated once at start. */
import {
  type Env,
  int,
  listenHost,
  readSettings,
  type SettingEntry,
  SettingsError,
  setting,
  settingEntries,
  text,
} from '@signet/settings';

export { SettingsError };

export type McpServerConfig = {
  port: number;
  /** Listen address (HOST): loopback unless set, so a development server is not on the network. */
  host: string;
  /** Signet's issuer identifier, exactly as its discovery document says it. */
  issuer: string;
  /** The resource this server is (PUBLIC_URL): the MCP endpoint's public URL, the `aud` its tokens carry. */
  publicUrl: string;
  /** The MCP endpoint's path on this server (PUBLIC_URL's path). */
  mcpPath: string;
};

const GROUP = 'Application C';

const isLoopback = (host: string) => ['localhost', '127.0.0.1', '[::1]'].includes(host);

/** An http(s) URL kept exactly as written (an issuer and a resource are compared as strings). */
function exactUrl(variable: string, value: string): URL {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new SettingsError(`${variable}: must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  }
  if (url.hash || value.includes('#') || url.search) {
    throw new SettingsError(`${variable}: must have no query and no fragment (got ${JSON.stringify(value)})`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new SettingsError(
      `${variable}: must be an https URL (http only on localhost, 127.0.0.1 or [::1]) (got ${JSON.stringify(value)})`,
    );
  }
  return url;
}

const schema = {
  PORT: setting(int(1, 65535, 3004), { group: GROUP, default: '`3004`', description: 'listen port' }),
  HOST: setting(listenHost('127.0.0.1'), {
    group: GROUP,
    default: '`127.0.0.1`',
    description:
      'listen address: loopback, so an example started on a laptop is not reachable from the network; `0.0.0.0` (or `::`) for every interface, behind a proxy',
  }),
  ISSUER: setting(text(), {
    group: GROUP,
    default: '`http://localhost:3000` (the provider `npm start` runs)',
    description:
      "Signet's issuer, exactly as its discovery document's `issuer` says it (the hosted profile's ends in `/`); `https`, or `http` on loopback only",
  }),
  PUBLIC_URL: setting(text(), {
    group: GROUP,
    default: '`http://localhost:<PORT>/mcp`',
    description:
      'the MCP endpoint as clients reach it: the resource this server advertises (RFC 9728 `resource`) and the `aud` its tokens must carry; its path is where the endpoint is served. `https`, or `http` on loopback only',
  }),
};

/** This app's settings with their documentation (npm run docs:settings renders them). */
export const settingsReference = (): SettingEntry[] => settingEntries(schema);

export function loadMcpServerConfig(env: Env = process.env): McpServerConfig {
  const s = readSettings(schema, env);
  const issuer = s.ISSUER ?? 'http://localhost:3000';
  const publicUrl = s.PUBLIC_URL ?? `http://localhost:${s.PORT}/mcp`;
  exactUrl('ISSUER', issuer);
  const mcpPath = exactUrl('PUBLIC_URL', publicUrl).pathname;
  return { port: s.PORT, host: s.HOST, issuer, publicUrl, mcpPath };
}
