/**
 * What happens around a client's registration, update and removal, beyond oidc-provider's own
 * record: its logo is fetched when it is registered or updated (under the registration rate
 * limit, never on an anonymous request), and everything Signet keeps for it (logo, usage record,
 * registration access tokens) goes with it.
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import { createOidcAdapter, type Store } from '../storage/index.ts';
import { type LogoStoreOptions, refreshClientLogo, removeClientLogo } from './logos.ts';
import { useKey } from './usage.ts';

/**
 * After a registration (201) or an update (200) of a client: its logo as its new metadata says.
 * After a deletion (204): what Signet kept for it. Placed after the hosted profile's path
 * mapping, so it sees oidc-provider's own paths (`<registration>` and `<registration>/<id>`).
 */
export function clientLifecycle(profile: ProfileDefinition, logos: LogoStoreOptions): Middleware {
  const registration = routeKey(profile.routes.registration);
  const managed = `${registration}/`;
  return (ctx, next) => {
    const route = routeOf(ctx);
    const isRegistration = route === registration && ctx.method === 'POST';
    const isManagement = route.startsWith(managed) && (ctx.method === 'PUT' || ctx.method === 'DELETE');
    if (!isRegistration && !isManagement) return next();
    return next().then(async () => {
      const body = ctx.body as { client_id?: unknown; logo_uri?: unknown } | undefined;
      if ((ctx.status === 201 || ctx.status === 200) && typeof body?.client_id === 'string') {
        await refreshClientLogo(logos, body.client_id, typeof body.logo_uri === 'string' ? body.logo_uri : undefined);
      } else if (ctx.method === 'DELETE' && ctx.status === 204) {
        const clientId = decodeURIComponent(ctx.path.slice(ctx.path.lastIndexOf('/') + 1));
        await forgetClient(logos.store, clientId, { clientRecord: false, registrationTokens: false });
      }
    });
  };
}

/** The ids of the registration access tokens of each client (a scan: for the CLI and the expiry sweep). */
export async function registrationTokensByClient(store: Store): Promise<Map<string, string[]>> {
  const prefix = 'oidc:RegistrationAccessToken:';
  const keys = (await store.keys(prefix)).filter((key) => !key.endsWith(':consumed'));
  const byClient = new Map<string, string[]>();
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    const values = await store.getMany(chunk);
    values.forEach((value, j) => {
      const clientId = value === undefined ? undefined : (JSON.parse(value) as { clientId?: string }).clientId;
      if (clientId) byClient.set(clientId, [...(byClient.get(clientId) ?? []), (chunk[j] as string).slice(prefix.length)]);
    });
  }
  return byClient;
}

/**
 * Removes a stored client and everything kept for it: its record, its registration access
 * tokens (`tokens`, found by registrationTokensByClient when not given), its logo and its usage
 * record. `clientRecord` / `registrationTokens: false` when oidc-provider has removed those already.
 */
export async function forgetClient(
  store: Store,
  clientId: string,
  options: { clientRecord?: boolean; registrationTokens?: boolean; tokens?: string[] } = {},
): Promise<void> {
  const Adapter = createOidcAdapter(store);
  if (options.registrationTokens !== false) {
    const tokens = options.tokens ?? (await registrationTokensByClient(store)).get(clientId) ?? [];
    const tokenAdapter = new Adapter('RegistrationAccessToken');
    for (const id of tokens) await tokenAdapter.destroy(id);
  }
  await removeClientLogo(store, clientId);
  await store.delete(useKey(clientId));
  if (options.clientRecord !== false) await new Adapter('Client').destroy(clientId);
}
