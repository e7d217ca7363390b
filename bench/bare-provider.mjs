/**
 * The baseline for the flow benchmark: a bare oidc-provider 9 doing the same authorization-code
 * flow as Signet, with a programmatic interaction that signs in a fixed account without any
 * check, and the same storage: Signet's memory, SQLite, Redis or PostgreSQL store behind Signet's adapter
 * (oidc-provider's own memory adapter is an LRU of 1,000 entries that drops flows under load). Plain JavaScript, run with node like the built provider.
 *
 *   PORT=… STORAGE=memory|sqlite:<path>|redis://…|postgres://… node bench/bare-provider.mjs
 *
 * BENCH_BARE_INTROSPECTION=1 turns on oidc-provider's introspection endpoint (the capacity
 * benchmark's baseline for introspection); the flow benchmark leaves it off.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT ?? 4100);
const storage = process.env.STORAGE ?? 'memory';
const issuer = `http://localhost:${port}`;

const { createOidcAdapter } = await import('../apps/provider/dist/storage/adapter.js');
const store =
  storage === 'memory'
    ? (await import('../apps/provider/dist/storage/memory.js')).createMemoryStore()
    : storage.startsWith('sqlite:')
      ? (await import('../apps/provider/dist/storage/sqlite/sqlite.js')).createSqliteStore(storage.slice('sqlite:'.length))
      : storage.startsWith('postgres')
        ? await (await import('../apps/provider/dist/storage/postgres/postgres.js')).createPostgresStore(storage)
        : (await import('../apps/provider/dist/storage/redis/redis.js')).createRedisStore(storage, {
            prefix: process.env.STORAGE_PREFIX ?? `bare-${port}:`,
          });
const adapter = createOidcAdapter(store);

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const provider = new Provider(issuer, {
  adapter,
  // Clients register themselves, as with Signet: oidc-provider then reads each one from storage
  // per request (a configured client would be held in memory). Signet does too on memory and
  // SQLite; on Redis and PostgreSQL it answers client records from memory (docs/operating.md).
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: process.env.BENCH_BARE_INTROSPECTION === '1' },
  },
  jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  async findAccount(_ctx, accountId) {
    return { accountId, claims: async () => ({ sub: accountId }) };
  },
});

// BENCH_BARE_INTERACTION=page: the interaction takes Signet's two routes, still checking nothing —
// GET /interaction/<uid> answers what oidc-provider knows of it (JSON), and the POST reads the
// JSON body it is sent (the same message and signature a wallet posts to Signet) and signs in.
const twoStep = process.env.BENCH_BARE_INTERACTION === 'page';

/** The request body as JSON, read and parsed but not looked at. */
async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

// The interaction: no check; the fixed account signs in and grants what was asked (on the GET,
// or with BENCH_BARE_INTERACTION=page on the POST after a GET of the details).
provider.use(async (ctx, next) => {
  if (!/^\/interaction\/[^/]+$/.test(ctx.path)) return next();
  if (twoStep && ctx.method === 'GET') {
    const { uid, params, prompt } = await provider.interactionDetails(ctx.req, ctx.res);
    ctx.set('cache-control', 'no-store');
    ctx.body = { uid, params, prompt: prompt.name };
    return;
  }
  if (ctx.method !== (twoStep ? 'POST' : 'GET')) return next();
  if (twoStep) await readJson(ctx.req);
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
