/**
 * The client's own registration. With CLIENT_ID set it uses that (and CLIENT_SECRET). Otherwise,
 * on first use, it registers itself at the provider's registration endpoint (as a public client,
 * `none`, when the provider offers it; else with the secret the provider returns) and keeps the
 * result in DATA_DIR/client.json, so restarts and other instances sharing DATA_DIR reuse it.
 * Concurrent first requests register once: in one process they share one promise; across
 * processes an exclusive lock file decides who registers while the others wait for the file.
 */
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import type { ClientConfig } from './config.ts';

export type Registration = {
  issuer: string;
  client_id: string;
  client_secret?: string;
  registration_access_token?: string;
  registration_client_uri?: string;
  redirect_uris: string[];
};

export type RegistrationOptions = {
  /** How long to wait for another process's registration, in ms. */
  waitMs?: number;
};

const fileOf = (config: ClientConfig) => join(config.dataDir, 'client.json');

function metadataFor(config: ClientConfig): Partial<oauth.Client> {
  return Object.fromEntries(
    Object.entries({
      redirect_uris: [config.redirectUri],
      post_logout_redirect_uris: [`${config.appOrigin}/`],
      client_name: config.clientName,
      client_uri: config.clientUri,
      logo_uri: config.logoUri,
      policy_uri: config.policyUri,
      tos_uri: config.tosUri,
      contacts: config.contacts.length > 0 ? config.contacts : undefined,
      response_types: ['code'],
      grant_types: ['authorization_code'],
    }).filter(([, value]) => value !== undefined),
  );
}

async function readStored(config: ClientConfig): Promise<Registration | undefined> {
  try {
    const stored = JSON.parse(await readFile(fileOf(config), 'utf8')) as Registration;
    // A registration for another provider or another redirect URI is not ours any more.
    if (stored.issuer !== config.issuer || !stored.redirect_uris?.includes(config.redirectUri)) return undefined;
    return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${fileOf(config)}: ${(error as Error).message}`);
  }
}

async function register(config: ClientConfig): Promise<Registration> {
  // oauth4webapi (under openid-client) gives the whole registration response, secret included.
  // Plain http is only ever allowed for a provider on localhost (the settings check that).
  const insecure = { [oauth.allowInsecureRequests]: new URL(config.issuer).protocol === 'http:' };
  const issuer = new URL(config.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  if (!as.registration_endpoint) throw new Error(`${config.issuer} has no registration_endpoint; set CLIENT_ID instead`);
  // A public client where the provider offers that (self-hosted); where it does not advertise
  // `none` (the hosted profile), the provider's default applies and the secret it returns is used.
  const metadata = metadataFor(config);
  if (as.token_endpoint_auth_methods_supported?.includes('none') ?? true) metadata.token_endpoint_auth_method = 'none';
  const response = await oauth.dynamicClientRegistrationRequest(as, metadata, insecure);
  const m = (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.OmitSymbolProperties<oauth.Client> & {
    registration_access_token?: string;
    registration_client_uri?: string;
  };
  return {
    issuer: config.issuer,
    client_id: m.client_id,
    client_secret: typeof m.client_secret === 'string' ? m.client_secret : undefined,
    registration_access_token: m.registration_access_token,
    registration_client_uri: m.registration_client_uri,
    redirect_uris: [config.redirectUri],
  };
}

async function registerOnce(config: ClientConfig, options: RegistrationOptions): Promise<Registration> {
  const stored = await readStored(config);
  if (stored) return stored;
  // The registration holds the client's secret: only this user may read it (and any parent created here).
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const lock = `${fileOf(config)}.lock`;
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  for (;;) {
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (handle) {
      try {
        const raced = await readStored(config);
        if (raced) return raced;
        const registration = await register(config);
        const tmp = `${fileOf(config)}.${process.pid}.tmp`;
        await writeFile(tmp, `${JSON.stringify(registration, null, 2)}\n`, { mode: 0o600 });
        await rename(tmp, fileOf(config));
        return registration;
      } finally {
        await handle.close();
        await rm(lock, { force: true });
      }
    }
    // Someone else is registering: wait for their file (or take over a lock left by a crash).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const done = await readStored(config);
    if (done) return done;
    const age = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 30_000) await rm(lock, { force: true });
    if (Date.now() > deadline) throw new Error(`timed out waiting for another process to register (lock ${lock})`);
  }
}

/** The client registration, from settings, from DATA_DIR, or made now (once). */
export function createRegistrar(config: ClientConfig, options: RegistrationOptions = {}) {
  let pending: Promise<Registration> | undefined;
  return {
    get(): Promise<Registration> {
      if (config.clientId) {
        return Promise.resolve({
          issuer: config.issuer,
          client_id: config.clientId,
          client_secret: config.clientSecret,
          redirect_uris: [config.redirectUri],
        });
      }
      pending ??= registerOnce(config, options).catch((error) => {
        pending = undefined; // a failed attempt may be retried by the next request
        throw error;
      });
      return pending;
    },
  };
}
