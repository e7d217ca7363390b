/**
 * An agent's `jti` is claimed once across replicas, on every shared storage: two providers (two
 * apps, each on its own port, over real HTTP) share Redis, PostgreSQL or a SQLite file; the same
 * assertion sent to both at once is accepted exactly once, and the tokens one replica issues work
 * at the other.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import { postgresSchema } from '@signet/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsFor, ethereumAgent, JWT_BEARER, solanaAgent, tokenRequest } from './agent-assertions.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'signet-agent-replicas-'));
const schema = postgresSchema();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schema.drop();
});

const storages: [string, () => Record<string, string>][] = [
  ['Redis', () => ({ STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-agents:${randomUUID()}:` })],
  ['PostgreSQL', () => ({ STORAGE_URL: schema.url })],
  ['SQLite', () => ({ STORAGE_URL: `sqlite:${join(dir, 'signet.db')}` })],
];

describe.each(storages)('two replicas sharing %s', (_name, storage) => {
  let a: TestProvider;
  let b: TestProvider;
  let client: { client_id: string };
  beforeAll(async () => {
    const shared = { ...storage(), SOLANA_NETWORKS: 'mainnet' };
    a = await startTestProvider(shared);
    b = await startTestProvider({ ...shared, ISSUER: a.issuer });
    const response = await fetch(`${a.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
    });
    client = (await response.json()) as { client_id: string };
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('the same assertion at both at once: accepted exactly once, the other refused as a replay', async () => {
    const agent = ethereumAgent();
    const solana = await solanaAgent();
    for (let round = 0; round < 4; round++) {
      const assertion =
        round % 2 === 0
          ? agent.sign(claimsFor(agent.accountId(), a.issuer))
          : await solana.sign(claimsFor(solana.accountId, a.issuer));
      const answers = await Promise.all([
        tokenRequest(`${a.url}/token`, client, { assertion }),
        tokenRequest(`${b.url}/token`, client, { assertion }),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, JSON.stringify(answers.map((answer) => answer.body))).toEqual([200, 400]);
      const refused = answers.find((answer) => answer.status === 400);
      expect(refused?.body.error_description).toMatch(/`jti` was already used/);
    }
  });

  it('a token one replica issued is good at the other; a replay there is refused', async () => {
    const agent = ethereumAgent();
    const assertion = agent.sign(claimsFor(agent.accountId(), a.issuer));
    const issued = await tokenRequest(`${a.url}/token`, client, { assertion });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const userinfo = await fetch(`${b.url}/me`, { headers: { authorization: `Bearer ${issued.body.access_token}` } });
    expect(((await userinfo.json()) as { sub: string }).sub).toBe(agent.accountId());
    const replayed = await tokenRequest(`${b.url}/token`, client, { assertion });
    expect(replayed.body.error_description).toMatch(/`jti` was already used/);
  });
});
