/**
 * What a token by the JWT bearer grant costs (agents/: one request with an assertion signed by a
 * wallet key) against a complete interactive sign-in, in the provider's CPU. One built Signet on
 * memory storage, loaded with request-cpu.mjs: interactive sign-ins driven at concurrency 1 by the
 * flow benchmark's driver (every request of a flow, summed), and token requests sent one at a time
 * with a fresh assertion each, signed here as an agent signs them (@noble/curves for ES256K, Node's
 * Ed25519 for EdDSA), the CPU of `POST /token` alone. Goal: a token by the grant costs at most a
 * third of a sign-in.
 */
import { createPrivateKey, randomUUID, sign as signEd25519 } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha256';
import { base58 } from '@scure/base';
import { bytesToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { drive, startServer, stopServers } from './flow.ts';
import type { Check, Section } from './report.ts';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const FLOWS = Number(process.env.BENCH_JWT_FLOWS ?? 200);
const TOKENS = Number(process.env.BENCH_JWT_TOKENS ?? 400);
const ROUNDS = Number(process.env.BENCH_JWT_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_JWT_WARMUP ?? 1000);
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

type Sums = Record<string, { requests: number; micros: number }>;
const sums = async (url: string) => (await (await fetch(`${url}/__request-cpu`)).json()) as Sums;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An agent of each kind: its account id and a function that signs an assertion's input. */
function agents() {
  const secret = secp256k1.utils.randomPrivateKey();
  const { address } = privateKeyToAccount(bytesToHex(secret));
  const seed = secp256k1.utils.randomPrivateKey(); // 32 random bytes, as an Ed25519 seed
  const ed = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const solanaAddress = base58.encode(Buffer.from((ed.export({ format: 'jwk' }) as { x: string }).x, 'base64url'));
  return {
    ES256K: {
      sub: `eip155:1:${address}`,
      sign: (input: string) => secp256k1.sign(sha256(new TextEncoder().encode(input)), secret).toCompactRawBytes(),
    },
    EdDSA: {
      sub: `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${solanaAddress}`,
      sign: (input: string) => new Uint8Array(signEd25519(null, Buffer.from(input), ed)),
    },
  };
}

/** `count` token requests one at a time, each with a fresh assertion; the server's µs of CPU per `POST /token`. */
async function tokens(url: string, clientId: string, alg: 'ES256K' | 'EdDSA', count: number, newKeys = false): Promise<number> {
  let agent = agents()[alg];
  const before = (await sums(url))['POST /token'] ?? { requests: 0, micros: 0 };
  for (let i = 0; i < count; i++) {
    if (newKeys) agent = agents()[alg];
    const iat = Math.floor(Date.now() / 1000);
    const input = `${b64({ alg, typ: 'JWT' })}.${b64({ iss: agent.sub, sub: agent.sub, aud: url, iat, exp: iat + 60, jti: randomUUID() })}`;
    const assertion = `${input}.${Buffer.from(agent.sign(input)).toString('base64url')}`;
    const response = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, client_id: clientId, scope: 'openid' }),
    });
    if (response.status !== 200) throw new Error(`the JWT bearer grant answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
  const after = (await sums(url))['POST /token'] ?? { requests: 0, micros: 0 };
  return (after.micros - before.micros) / (after.requests - before.requests);
}

export async function jwtBearer(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-jwt-bearer-'));
  const server = await startServer('signet', 'memory', dir, {
    nodeArgs: ['--import', join(ROOT, 'bench/request-cpu.mjs')],
    env: { SOLANA_NETWORKS: 'mainnet' },
  });
  const signIn: number[] = [];
  const exchange: number[] = [];
  const perToken = { ES256K: [] as number[], EdDSA: [] as number[], newKey: [] as number[] };
  try {
    const registered = await fetch(`${server.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    await drive('signet', server.url, 16, [server.child.pid as number], '1', WARMUP);
    await tokens(server.url, clientId, 'ES256K', WARMUP);
    await tokens(server.url, clientId, 'EdDSA', WARMUP / 2);
    for (let round = 0; round < ROUNDS; round++) {
      const before = await sums(server.url);
      await drive('signet', server.url, 1, [server.child.pid as number], '1', FLOWS);
      const after = await sums(server.url);
      // Every request of the flows (their counts differ by route: divide by the flows the driver ran).
      const flowRequests = after['POST /interaction/:id']?.requests ?? 0;
      const flows = flowRequests - (before['POST /interaction/:id']?.requests ?? 0);
      let micros = 0;
      for (const [route, sum] of Object.entries(after)) {
        if (route.startsWith('GET /__') || route === 'POST /reg') continue;
        micros += sum.micros - (before[route]?.micros ?? 0);
      }
      signIn.push(micros / flows);
      exchange.push(((after['POST /token']?.micros ?? 0) - (before['POST /token']?.micros ?? 0)) / flows);
      perToken.ES256K.push(await tokens(server.url, clientId, 'ES256K', TOKENS));
      perToken.EdDSA.push(await tokens(server.url, clientId, 'EdDSA', TOKENS));
      perToken.newKey.push(await tokens(server.url, clientId, 'ES256K', TOKENS / 4, true));
    }
  } finally {
    await stopServers([server]);
    rmSync(dir, { recursive: true, force: true });
  }
  const flow = median(signIn);
  const es = median(perToken.ES256K);
  const ed = median(perToken.EdDSA);
  const fresh = median(perToken.newKey);
  const exchanged = median(exchange);
  const checks: Check[] = [
    {
      name: 'CPU per token by the JWT bearer grant (ES256K) / per interactive sign-in',
      value: es / flow,
      display: `${(es / flow).toFixed(2)} (${es.toFixed(0)} / ${flow.toFixed(0)} µs)`,
      target: '≤ 0.33',
      pass: es / flow <= 1 / 3,
    },
    {
      name: 'CPU per token by the JWT bearer grant (EdDSA) / per interactive sign-in',
      value: ed / flow,
      display: `${(ed / flow).toFixed(2)} (${ed.toFixed(0)} / ${flow.toFixed(0)} µs)`,
      target: '≤ 0.33',
      pass: ed / flow <= 1 / 3,
    },
  ];
  return {
    title: 'Agents: a token by the JWT bearer grant against an interactive sign-in',
    table: {
      head: ['what', 'requests', 'Signet µs CPU'],
      rows: [
        [
          'an interactive sign-in (authorization, details, signed message, resume, code exchange, userinfo)',
          '6',
          flow.toFixed(0),
        ],
        ['of which its code exchange (`POST /token`: code checked, access and ID token signed)', '1', exchanged.toFixed(0)],
        ['a token by the JWT bearer grant, ES256K (Ethereum key: recovery)', '1', es.toFixed(0)],
        ['a token by the JWT bearer grant, EdDSA (Solana key)', '1', ed.toFixed(0)],
        ['ES256K, the first assertion of each key (a new key each time: recovery, a new account)', '1', fresh.toFixed(0)],
      ],
    },
    checks,
    notes: [
      `Memory storage, one request at a time; ${FLOWS} sign-ins and ${TOKENS} tokens of each kind per round, ${ROUNDS} rounds (medians), after ${WARMUP} warm-up sign-ins and tokens (BENCH_JWT_FLOWS, BENCH_JWT_TOKENS, BENCH_JWT_ROUNDS, BENCH_JWT_WARMUP). The server loads bench/request-cpu.mjs (CPU from a request's arrival to the end of its answer, per route); a sign-in is the sum of its requests' CPU, a token the CPU of its \`POST /token\` (assertion checked, jti claimed, account, grant and record stored, access and ID token signed). An agent signs in again and again with one key: the provider recovers an Ethereum key's public key from its first assertion and checks the next ones against it (OpenSSL), so the first row of ES256K is what an agent pays from its second token on; the last row, a new key every time, is the recovery's price (and a new account's), reported without a goal. Each assertion is signed in the benchmark's process, as an agent signs it: it costs the server nothing. \`npm run bench -- jwtBearer\` runs this section alone.`,
    ],
  };
}
