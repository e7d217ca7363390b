/**
 * The baseline for the flow benchmark: a bare oidc-provider 9 doing the same authorization-code
 * flow as Signet, with a programmatic interaction that signs in a fixed account without any
 * check, and the same storage (oidc-provider's memory adapter, or Signet's SQLite / Redis
 * stores with its adapter). Plain JavaScript, run with node like the built provider.
 *
 *   PORT=… STORAGE=memory|sqlite:<path>|redis://… node bench/bare-provider.mjs
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 4100);
const storage = process.env.STORAGE ?? 'memory';
const issuer = `http://localhost:${port}`;

let adapter;
if (storage !== 'memory') {
  const stores = await import('../apps/provider/dist/storage/index.js');
  const store = storage.startsWith('sqlite:')
    ? stores.createSqliteStore(storage.slice('sqlite:'.length))
    : stores.createRedisStore(storage, { prefix: `bare-${port}:` });
  adapter = stores.createOidcAdapter(store);
}

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const provider = new Provider(issuer, {
  ...(adapter ? { adapter } : {}),
  clients: [
    {
      client_id: 'bench',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1:4999/callback'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  async findAccount(_ctx, accountId) {
    return { accountId, claims: async () => ({ sub: accountId }) };
  },
});

// The interaction: no page, no check; the fixed account signs in and grants what was asked.
provider.use(async (ctx, next) => {
  const match = /^\/interaction\/([^/]+)$/.exec(ctx.path);
  if (!match || ctx.method !== 'GET') return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const accountId = 'eip155:1:0x0000000000000000000000000000000000000001';
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  const returnTo = await provider.interactionResult(
    ctx.req,
    ctx.res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
  ctx.status = 303;
  ctx.redirect(returnTo);
});

const server = createServer(provider.callback()).listen(port, '127.0.0.1', () => console.log(`bare oidc-provider on ${issuer}`));
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
