/**
 * The load driver of the flow benchmark, in its own process (pinned to its own core by
 * flow.ts): complete authorization-code flows over loopback HTTP, `CONCURRENCY` at a time, as a
 * browser and a relying party would make them:
 *   authorize → interaction (Signet: details, a signed EIP-4361 message posted; bare: a
 *   programmatic sign-in on one GET; bare-page: the same on Signet's two routes, the details
 *   and then a POST of a message it does not check) → resume → token (PKCE) → userinfo.
 * Prints one JSON line: flows, seconds, latency percentiles, failures.
 *
 *   TARGET=http://localhost:3000 MODE=signet|bare|bare-page FLOWS=1000 CONCURRENCY=16 WARMUP=100 node --import tsx bench/flow-driver.ts
 *
 * With ALTERNATE (and a mode per server), one line with each server's own figures (perServer),
 * every flow's latency among them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { messageParameters } from '@signet/provider';
import { createSiweMessage } from '@signet/siwe';
import { CookieJar, request } from '@signet/testkit';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hashMessage, hexToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { percentile } from './stats.ts';

type Mode = 'signet' | 'bare' | 'bare-page';
/**
 * One server, or several (comma-separated): worker i drives targets[i % n]. Several servers share
 * one storage and one registered client, unless MODE lists a mode per server: then each is a
 * server of its own (its own client), driven at once, or in turn with ALTERNATE (the alternating
 * measurement of flow.ts).
 */
const targets = (process.env.TARGET as string).split(',');
const modes = (process.env.MODE as string).split(',') as Mode[];
const separate = modes.length > 1;
const modeOf = (i: number) => (modes[i] ?? modes[0]) as Mode;
const flows = Number(process.env.FLOWS ?? 1000);
const concurrency = Number(process.env.CONCURRENCY ?? 16);
const warmup = Number(process.env.WARMUP ?? 100);
/**
 * With several servers (MODE lists one per server): drive them in turn, ALTERNATE flows at a
 * time, all workers on one server, instead of all at once. Each server then has its core to
 * itself while it runs, as when measured alone, and a drift of the host's speed falls on every
 * server alike within seconds (the alternating measurement of flow.ts).
 */
const alternate = Number(process.env.ALTERNATE ?? 0);
const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
/**
 * CLIENTS=<prefix><count>: each flow signs in to a client picked at random among `<prefix>0` …
 * `<prefix><count - 1>`, clients stored beforehand as copies of the one the driver registers
 * (bench/clients.ts); otherwise every flow uses the client the driver registers.
 */
const pool = /^(.*?)(\d+)$/.exec(process.env.CLIENTS ?? '');
const pickClient = (registered: string) => (pool ? `${pool[1]}${Math.floor(Math.random() * Number(pool[2]))}` : registered);

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function clientId(target: string): Promise<string> {
  const response = await fetch(`${target}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** A wallet that signs with libsecp256k1 (WebAssembly): the driver's core stays free for HTTP. */
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

const location = (response: Response, base: string) => {
  const value = response.headers.get('location');
  if (!value) throw new Error(`${base} answered ${response.status} without a redirect`);
  return new URL(value, base).href;
};

async function flow(client: string, signer: ReturnType<typeof wallet>, target: string, mode: Mode) {
  const jar = new CookieJar();
  const authorize = `${target}/auth?${new URLSearchParams({
    client_id: client,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state: 'bench',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;
  const interaction = location(await request(jar, authorize), authorize);
  let resume: string;
  if (mode === 'signet') {
    const details = await (await request(jar, interaction, { headers: { accept: 'application/json' } })).json();
    const message = createSiweMessage(messageParameters(details, { address: signer.address }));
    const posted = await request(jar, interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message, signature: signer.sign(message) }),
    });
    if (posted.status !== 303) throw new Error(`sign-in answered ${posted.status}: ${await posted.text()}`);
    resume = location(posted, interaction);
  } else if (mode === 'bare-page') {
    // The bare provider with Signet's two interaction routes: the details, then a POST of what a
    // wallet posts (an EIP-4361 message and its signature) that it reads but does not check. The
    // driver signs it as it does for Signet, so the driver's own work per flow is the same for
    // both servers and only the servers' work differs.
    await (await request(jar, interaction, { headers: { accept: 'application/json' } })).json();
    const uid = new URL(interaction).pathname.split('/').pop() as string;
    const issuer = new URL(target);
    const message = createSiweMessage({
      domain: issuer.host,
      address: signer.address,
      uri: issuer.origin,
      version: '1',
      chainId: 1,
      nonce: Buffer.from(uid).toString('hex'),
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 600_000),
      resources: [REDIRECT_URI],
    });
    const posted = await request(jar, interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message, signature: signer.sign(message) }),
    });
    resume = location(posted, interaction);
  } else {
    resume = location(await request(jar, interaction), interaction);
  }
  const callback = new URL(location(await request(jar, resume), resume));
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback}`);
  const token = await fetch(`${target}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: client,
      code_verifier: verifier,
    }),
  });
  if (token.status !== 200) throw new Error(`token answered ${token.status}: ${await token.text()}`);
  const { access_token } = (await token.json()) as { access_token: string };
  const userinfo = await fetch(`${target}/me`, { headers: { authorization: `Bearer ${access_token}` } });
  if (userinfo.status !== 200) throw new Error(`userinfo answered ${userinfo.status}`);
  await userinfo.arrayBuffer();
}

/** WALLETS distinct wallets (at least one per worker), each flow the next: many accounts, as in production. */
const signers = Array.from({ length: Math.max(concurrency, Number(process.env.WALLETS ?? 256)) }, () => wallet());
let nextSigner = 0;

/** `count` flows, `concurrency` at a time; worker i drives targets[i % n], or every worker targets[only]. */
async function run(clients: string[], count: number, only?: number) {
  const latencies: number[] = [];
  const failures: string[] = [];
  const perTarget = targets.map(() => 0);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      const index = only ?? worker % targets.length;
      const server = targets[index] as string;
      const client = (separate ? clients[index] : clients[0]) as string;
      while (next < count) {
        next += 1;
        const t = performance.now();
        try {
          const signer = signers[nextSigner++ % signers.length] as ReturnType<typeof wallet>;
          await flow(pickClient(client), signer, server, modeOf(index));
          latencies.push(performance.now() - t);
          perTarget[index] = (perTarget[index] ?? 0) + 1;
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies, failures, perTarget };
}

/** ALTERNATE flows at a time on each server in turn, `flows` in all on each: each server's own figures. */
async function runAlternating(clients: string[]) {
  const each = targets.map(() => ({ seconds: 0, latencies: [] as number[], failures: [] as string[] }));
  for (let done = 0; done < flows; done += alternate) {
    for (let index = 0; index < targets.length; index++) {
      const segment = await run(clients, Math.min(alternate, flows - done), index);
      const mine = each[index] as (typeof each)[number];
      mine.seconds += segment.seconds;
      mine.latencies.push(...segment.latencies);
      mine.failures.push(...segment.failures);
    }
  }
  return each.map(({ seconds, latencies, failures }) => ({
    flows: latencies.length,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: failures.length,
    firstFailure: failures[0],
    // Every flow's latency (ms, to 0.1), so that the benchmark can take percentiles over all its rounds.
    latencies: latencies.map((ms) => Math.round(ms * 10) / 10),
  }));
}

const clients = separate ? await Promise.all(targets.map(clientId)) : [await clientId(targets[0] as string)];
if (separate && alternate > 0) {
  for (let index = 0; index < targets.length; index++) await run(clients, warmup, index);
} else {
  await run(clients, warmup);
}
process.stdout.write('warm\n');
// The parent reads the server's CPU counters between "warm" and the result.
await new Promise((resolve) => process.stdin.once('data', resolve));
if (separate && alternate > 0) {
  const perServer = await runAlternating(clients);
  const failed = perServer.find((server) => server.failures > 0);
  process.stdout.write(
    `${JSON.stringify({
      flows: perServer.reduce((sum, server) => sum + server.flows, 0),
      seconds: perServer.reduce((sum, server) => sum + server.seconds, 0),
      p50: Number.NaN,
      p99: Number.NaN,
      failures: perServer.reduce((sum, server) => sum + server.failures, 0),
      firstFailure: failed?.firstFailure,
      perTarget: perServer.map((server) => server.flows),
      perServer,
    })}\n`,
  );
} else {
  const { seconds, latencies, failures, perTarget } = await run(clients, flows);
  process.stdout.write(
    `${JSON.stringify({ flows: latencies.length, seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures: failures.length, firstFailure: failures[0], perTarget })}\n`,
  );
}
process.exit(0);
