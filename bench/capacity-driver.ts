/**
 * The load driver of the capacity benchmark (capacity.ts), in its own process pinned to its own
 * core: it registers its clients, mints what an operation needs (codes, refresh tokens, access
 * tokens, device codes) with complete sign-ins as a browser and a relying party make them, and
 * runs one kind of operation `CONCURRENCY` at a time when told. Commands arrive one JSON line at a
 * time on stdin; each is answered by one JSON line on stdout, so that the parent reads the
 * server's CPU counters just before a measured run and just after its answer.
 *
 *   {"cmd":"signins","count":1000}        complete sign-ins (authorize → interaction → resume → token → userinfo)
 *   {"cmd":"mint","kind":"codes","count":2000}   codes (sign-ins that stop at the callback)
 *   {"cmd":"mint","kind":"refresh","count":2000} sign-ins with offline_access, code exchanged: refresh and access tokens
 *   {"cmd":"mint","kind":"jwt","count":200}      sign-ins asking for RESOURCE's JWT access token (answered with the tokens)
 *   {"cmd":"mint","kind":"device","count":2000}  device authorization requests (RFC 8628 §3.1): device codes
 *   {"cmd":"mint","kind":"access","count":64}    sign-ins, code exchanged: the access tokens introspection and userinfo take
 *   {"cmd":"run","kind":"exchange"|"refresh"|"introspection"|"userinfo"|"device-poll"|"jwt-bearer","count":2000,"from":200}
 *     (`from`: the first minted item to use, the ones before it having gone to a warm-up run)
 *     jwt-bearer: a token by the JWT bearer grant (RFC 7523) for one of AGENTS agents, each
 *     request with an assertion of its own (ES256K, a new `jti`) signed here, as an agent signs it
 *
 *   TARGET=http://localhost:3000 CONCURRENCY=16 RESOURCE=http://127.0.0.1:4998/api node --conditions=@signet/source --import tsx bench/capacity-driver.ts
 *
 * MODE=bare drives the flow benchmark's bare oidc-provider (bare-provider.mjs) instead: its
 * interaction signs in on one unchecked GET, so a sign-in there posts no message.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { messageParameters } from '@signet/provider';
import { createSiweMessage } from '@signet/siwe';
import { CookieJar, request } from '@signet/testkit';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hashMessage, hexToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { percentile } from './stats.ts';

const target = process.env.TARGET as string;
const bare = process.env.MODE === 'bare';
const concurrency = Number(process.env.CONCURRENCY ?? 16);
const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
/** The resource the JWT access tokens are for (capacity.ts names it; RESOURCE_INDICATORS `*` allows http on loopback). */
const RESOURCE = process.env.RESOURCE as string;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** How many agents (Ethereum keys) the JWT-bearer run takes turns with: each signs in again and again. */
const AGENTS = 64;
/** How many access tokens introspection and userinfo take turns with. */
const ACCESS_POOL = 64;

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function register(metadata: Record<string, unknown>): Promise<{ client_id: string; client_secret?: string }> {
  const response = await fetch(`${target}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { client_id: string; client_secret?: string };
}

/** A wallet that signs with libsecp256k1 (WebAssembly), as flow-driver.ts's. */
function wallet() {
  const key = randomBytes(32);
  const address = privateKeyToAddress(bytesToHex(key));
  return {
    address,
    sign(message: string): string {
      const { signature, recoveryId } = ecc.signRecoverable(hexToBytes(hashMessage(message)), key);
      return `0x${Buffer.from(signature).toString('hex')}${(27 + recoveryId).toString(16)}`;
    },
  };
}
type Wallet = ReturnType<typeof wallet>;

const location = (response: Response, base: string) => {
  const value = response.headers.get('location');
  if (!value) throw new Error(`${base} answered ${response.status} without a redirect`);
  return new URL(value, base).href;
};

/** A sign-in to the code: authorize → interaction (details, signed message) → resume → callback. */
async function code(client: string, signer: Wallet, extra: Record<string, string> = {}): Promise<string> {
  const jar = new CookieJar();
  const authorize = `${target}/auth?${new URLSearchParams({
    client_id: client,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state: 'bench',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;
  const interaction = location(await request(jar, authorize), authorize);
  const resume = bare ? location(await request(jar, interaction), interaction) : await signAt(jar, interaction, signer);
  const callback = new URL(location(await request(jar, resume), resume));
  const value = callback.searchParams.get('code');
  if (!value) throw new Error(`no code: ${callback}`);
  return value;
}

/** Signet's interaction: the details, then the signed message; answers where to resume. */
async function signAt(jar: CookieJar, interaction: string, signer: Wallet): Promise<string> {
  const details = await (await request(jar, interaction, { headers: { accept: 'application/json' } })).json();
  const message = createSiweMessage(messageParameters(details, { address: signer.address }));
  const posted = await request(jar, interaction, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ message, signature: signer.sign(message) }),
  });
  if (posted.status !== 303) throw new Error(`sign-in answered ${posted.status}: ${await posted.text()}`);
  return location(posted, interaction);
}

type Tokens = { access_token: string; refresh_token?: string; id_token?: string };

const form = (body: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(body),
});

async function exchange(client: string, value: string, extra: Record<string, string> = {}): Promise<Tokens> {
  const response = await fetch(
    `${target}/token`,
    form({
      grant_type: 'authorization_code',
      code: value,
      redirect_uri: REDIRECT_URI,
      client_id: client,
      code_verifier: verifier,
      ...extra,
    }),
  );
  if (response.status !== 200) throw new Error(`token answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Tokens;
}

async function userinfo(accessToken: string) {
  const response = await fetch(`${target}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  if (response.status !== 200) throw new Error(`userinfo answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

const signers = Array.from({ length: concurrency }, () => wallet());

/** `count` operations, `concurrency` at a time; each gets its index and its worker's wallet. */
async function many(count: number, operation: (index: number, signer: Wallet) => Promise<string | undefined>) {
  const latencies: number[] = [];
  const failures: string[] = [];
  const answers: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    signers.map(async (signer) => {
      while (next < count) {
        const index = next++;
        const t = performance.now();
        try {
          const answer = await operation(index, signer);
          latencies.push(performance.now() - t);
          if (answer) answers[answer] = (answers[answer] ?? 0) + 1;
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    ops: latencies.length,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: failures.length,
    firstFailure: failures[0],
    answers,
    // Every latency (ms, to 0.01), so that the benchmark can take percentiles over several runs.
    latencies: latencies.map((ms) => Math.round(ms * 100) / 100),
  };
}

// The clients: a public one as a browser app's (PKCE, rotating refresh tokens), a confidential
// one as an API's (introspection), and a device's.
const app = await register({
  redirect_uris: [REDIRECT_URI],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
});
const api = await register({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' });
const apiAuth = `Basic ${Buffer.from(`${encodeURIComponent(api.client_id)}:${encodeURIComponent(api.client_secret as string)}`).toString('base64')}`;
// The bare provider has no device flow.
const device = bare
  ? { client_id: '' }
  : await register({ grant_types: [DEVICE_GRANT], response_types: [], token_endpoint_auth_method: 'none' });

// Agents (not on the bare provider, which has no such grant): a public client with the grant, and
// Ethereum keys that sign their own assertions (JWS ES256K: r‖s over SHA-256 of the signing input).
const agentClient = bare
  ? { client_id: '' }
  : await register({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' });
const agents = Array.from({ length: AGENTS }, () => {
  const key = randomBytes(32);
  const sub = `eip155:1:${privateKeyToAddress(bytesToHex(key))}`;
  return { key, sub };
});
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function assertion(agent: (typeof agents)[number]): string {
  const iat = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'ES256K', typ: 'JWT' })}.${b64({ iss: agent.sub, sub: agent.sub, aud: target, iat, exp: iat + 60, jti: randomUUID() })}`;
  const signature = ecc.sign(createHash('sha256').update(input).digest(), agent.key);
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

/** What the mints left, for the runs. */
const minted = { codes: [] as string[], refresh: [] as string[], access: [] as string[], device: [] as string[] };

const mints: Record<string, (index: number, signer: Wallet) => Promise<string | undefined>> = {
  async codes(_index, signer) {
    minted.codes.push(await code(app.client_id, signer));
    return undefined;
  },
  // offline_access is kept only with prompt=consent (oidc-provider), and the self-hosted profile
  // issues refresh tokens only for it (deployment/profiles.ts).
  async refresh(_index, signer) {
    const tokens = await exchange(
      app.client_id,
      await code(app.client_id, signer, { scope: 'openid offline_access', prompt: 'consent' }),
    );
    if (!tokens.refresh_token) throw new Error('no refresh token');
    minted.refresh.push(tokens.refresh_token);
    if (minted.access.length < ACCESS_POOL) minted.access.push(tokens.access_token);
    return undefined;
  },
  // As many sign-ins as a refresh mint makes (their records in the storage alike), the first
  // ACCESS_POOL access tokens kept: the bare provider's tokens to introspect.
  async access(_index, signer) {
    const tokens = await exchange(app.client_id, await code(app.client_id, signer));
    if (minted.access.length < ACCESS_POOL) minted.access.push(tokens.access_token);
    return undefined;
  },
  async jwt(_index, signer) {
    const tokens = await exchange(app.client_id, await code(app.client_id, signer, { resource: RESOURCE }), {
      resource: RESOURCE,
    });
    if (tokens.access_token.split('.').length !== 3) throw new Error('the access token for the resource is not a JWT');
    return tokens.access_token;
  },
  async device() {
    if (bare) throw new Error('the bare provider has no device flow');
    const response = await fetch(`${target}/device/auth`, form({ client_id: device.client_id, scope: 'openid' }));
    if (response.status !== 200) throw new Error(`device authorization answered ${response.status}: ${await response.text()}`);
    minted.device.push(((await response.json()) as { device_code: string }).device_code);
    return undefined;
  },
};

/** Takes the `index`-th of a minted list, which must hold it (each code and refresh token is used once). */
const take = (list: string[], index: number, what: string) => {
  const value = list[index];
  if (value === undefined) throw new Error(`only ${list.length} ${what} minted`);
  return value;
};

const runs: Record<string, (index: number) => Promise<string | undefined>> = {
  async exchange(index) {
    await exchange(app.client_id, take(minted.codes, index, 'codes'));
    return undefined;
  },
  async refresh(index) {
    const response = await fetch(
      `${target}/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: take(minted.refresh, index, 'refresh tokens'),
        client_id: app.client_id,
      }),
    );
    if (response.status !== 200) throw new Error(`refresh answered ${response.status}: ${await response.text()}`);
    const tokens = (await response.json()) as Tokens;
    if (!tokens.refresh_token) throw new Error('the refresh answered no new refresh token');
    return undefined;
  },
  async introspection(index) {
    const token = minted.access[index % minted.access.length] as string;
    const response = await fetch(`${target}/token/introspection`, form({ token }, { authorization: apiAuth }));
    if (response.status !== 200) throw new Error(`introspection answered ${response.status}: ${await response.text()}`);
    if (((await response.json()) as { active?: boolean }).active !== true) throw new Error('introspection: token not active');
    return undefined;
  },
  async userinfo(index) {
    await userinfo(minted.access[index % minted.access.length] as string);
    return undefined;
  },
  async 'jwt-bearer'(index) {
    if (bare) throw new Error('the bare provider has no JWT bearer grant');
    const agent = agents[index % AGENTS] as (typeof agents)[number];
    const response = await fetch(
      `${target}/token`,
      form({ grant_type: JWT_BEARER, assertion: assertion(agent), client_id: agentClient.client_id, scope: 'openid' }),
    );
    if (response.status !== 200) throw new Error(`the JWT bearer grant answered ${response.status}: ${await response.text()}`);
    if (!((await response.json()) as Tokens).id_token) throw new Error('the JWT bearer grant answered no ID token');
    return undefined;
  },
  // Each device code polled once: the person has not signed, so the answer is authorization_pending.
  async 'device-poll'(index) {
    const response = await fetch(
      `${target}/token`,
      form({ grant_type: DEVICE_GRANT, device_code: take(minted.device, index, 'device codes'), client_id: device.client_id }),
    );
    const body = (await response.json()) as { error?: string };
    if (response.status !== 400 || (body.error !== 'authorization_pending' && body.error !== 'slow_down')) {
      throw new Error(`device poll answered ${response.status}: ${JSON.stringify(body)}`);
    }
    return body.error;
  },
};

async function signIn(_index: number, signer: Wallet) {
  const tokens = await exchange(app.client_id, await code(app.client_id, signer));
  await userinfo(tokens.access_token);
  return undefined;
}

type Command = { cmd: 'signins' | 'mint' | 'run'; kind?: string; count: number; from?: number };
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const command = JSON.parse(line) as Command;
  const kind = command.kind ?? '';
  let result: Record<string, unknown>;
  if (command.cmd === 'signins') {
    result = await many(command.count, signIn);
  } else if (command.cmd === 'mint') {
    const mint = mints[kind];
    if (!mint) throw new Error(`unknown mint ${kind}`);
    if (kind === 'codes') minted.codes = [];
    if (kind === 'refresh') minted.refresh = [];
    if (kind === 'device') minted.device = [];
    const tokens: string[] = [];
    result = await many(command.count, async (index, signer) => {
      const token = await mint(index, signer);
      if (token) tokens.push(token);
      return undefined;
    });
    if (kind === 'jwt') result.tokens = tokens;
  } else {
    const operation = runs[kind];
    if (!operation) throw new Error(`unknown run ${kind}`);
    const from = command.from ?? 0;
    result = await many(command.count, (index) => operation(from + index));
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
process.exit(0);
