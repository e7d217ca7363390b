/**
 * Redis Sentinel: a provider process finds the primary through three sentinels and follows a
 * failover. A primary, a replica and three sentinels of the test's own (Debian's redis-server and
 * redis-sentinel, tuned to fail over in seconds); sign-ins run while the primary is killed with
 * SIGKILL. Every flow none of whose requests fell between the kill and the provider's recovery
 * completes; the others either complete (a step that met the outage is tried again, as a person
 * would) or end on a refusal that the lost node explains. No code is usable twice, and a fresh
 * sign-in succeeds within 20 s of the promotion.
 */
import { randomUUID } from 'node:crypto';
import { CookieJar, followToClient, getDetails, messageFor, postSignature, startInteraction } from '@signet/testkit';
import { type SentinelGroup, startSentinelGroup } from '@signet/testkit/redis';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationUrl, exchange, registerPublicClient } from './flows.ts';
import { freePort, type Replica, startReplica } from './processes.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a storage outage looks like from outside: 503, or the connection refused. */
const TRANSIENT = /answered 503|\b503\b|fetch failed|ECONNREFUSED|ECONNRESET/;

type Attempt = { started: number; ended: number };

/**
 * One step of a flow, tried again while it meets the outage (up to 30 s), as a person retries
 * a page that said "temporarily unavailable". Every attempt's time is recorded.
 */
async function patiently<T>(attempts: Attempt[], run: () => Promise<T>, failed: (value: T) => string | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const attempt = { started: Date.now(), ended: 0 };
    attempts.push(attempt);
    let problem: string | undefined;
    let value: T | undefined;
    try {
      value = await run();
      problem = failed(value);
    } catch (error) {
      problem = (error as Error).message;
    }
    attempt.ended = Date.now();
    if (problem === undefined) return value as T;
    if (!TRANSIENT.test(problem) || Date.now() > deadline) throw new Error(problem);
    await sleep(250);
  }
}

describe('Redis Sentinel: the primary is killed during sign-ins', () => {
  let group: SentinelGroup;
  let provider: Replica;
  beforeAll(async () => {
    group = await startSentinelGroup(`signet-${randomUUID().slice(0, 8)}`);
    const port = await freePort();
    provider = await startReplica(
      {
        ISSUER: `http://localhost:${port}`,
        STORAGE_URL: group.url,
        STORAGE_PREFIX: `signet-sentinel:${randomUUID()}:`,
        RATE_LIMIT_INTERACTION: '0',
        RATE_LIMIT_REGISTRATION: '0',
        RATE_LIMIT_TOKEN: '0',
        RATE_LIMIT_AUTHORIZATION: '0',
        SHUTDOWN_DRAIN_MS: '0',
      },
      port,
    );
  }, 90_000);
  afterAll(async () => {
    await provider?.stop();
    await group?.stop();
  });

  it('follows the promoted replica: untouched flows complete, no code works twice, a fresh sign-in within 20 s', async () => {
    const client = await registerPublicClient(provider);
    const codes: { code: string; verifier: string }[] = [];

    const signIn = async (attempts: Attempt[]) => {
      const account = privateKeyToAccount(generatePrivateKey());
      const jar = new CookieJar();
      const { url, verifier } = await authorizationUrl(provider, client.client_id);
      const interactionUrl = await patiently(
        attempts,
        () => startInteraction(jar, url),
        () => undefined,
      );
      const details = await patiently(
        attempts,
        () => getDetails(jar, interactionUrl),
        () => undefined,
      );
      const message = messageFor(details, account.address);
      const signature = await account.signMessage({ message });
      const posted = await patiently(
        attempts,
        async () => {
          const response = await postSignature(jar, interactionUrl, { message, signature });
          return { status: response.status, location: response.headers.get('location'), text: await response.text() };
        },
        (r) => (r.status === 303 ? undefined : `sign-in answered ${r.status} ${r.text}`),
      );
      const callback = await patiently(
        attempts,
        () => followToClient(jar, interactionUrl, posted.location as string),
        () => undefined,
      );
      const code = callback.searchParams.get('code');
      if (!code) throw new Error(`no code: ${callback.href}`);
      const tokens = await patiently(
        attempts,
        () => exchange(provider, client.client_id, code, verifier),
        (r) => (r.status === 200 ? undefined : `token answered ${r.status} ${JSON.stringify(r.body)}`),
      );
      codes.push({ code, verifier });
      return tokens;
    };

    const FLOWS = 16;
    const flows = Array.from({ length: FLOWS }, (_, i) => {
      const attempts: Attempt[] = [];
      const outcome = (async () => {
        await sleep(i * 400);
        try {
          await signIn(attempts);
          return { i, attempts, error: undefined as string | undefined };
        } catch (error) {
          return { i, attempts, error: (error as Error).message };
        }
      })();
      return outcome;
    });

    await sleep(1_500);
    const deadPort = group.primary.port;
    const killedAt = Date.now();
    await group.primary.kill();
    // The sentinels agree the primary is down and promote the replica.
    let promotedAt = 0;
    while (Date.now() - killedAt < 30_000) {
      if ((await group.currentPrimaryPort()) === group.replica.port) {
        promotedAt = Date.now();
        break;
      }
      await sleep(50);
    }
    expect(promotedAt, 'the sentinels promoted the replica').toBeGreaterThan(0);

    // A fresh sign-in, begun at the promotion, completes within 20 s of it.
    const fresh = await signIn([]);
    expect(fresh.body.access_token).toBeTruthy();
    expect(Date.now() - promotedAt).toBeLessThan(20_000);
    const recoveredAt = Date.now();
    expect((await fetch(`${provider.url}/health/ready`)).status).toBe(200);

    const outcomes = await Promise.all(flows);
    const touchedOutage = (attempts: Attempt[]) => attempts.some((a) => a.ended >= killedAt && a.started <= recoveredAt);
    const untouched = outcomes.filter((o) => !touchedOutage(o.attempts));
    console.log(
      `sentinel failover: promoted ${promotedAt - killedAt} ms after the kill; ${outcomes.filter((o) => !o.error).length}/${FLOWS} flows completed; ${untouched.length} never met the outage`,
    );
    expect(untouched.length).toBeGreaterThan(0);
    for (const outcome of untouched) expect(outcome.error, `flow ${outcome.i}`).toBeUndefined();
    // A flow that met the outage completed, or ended on a refusal the lost node explains: the
    // sign-in or code it had written on the dead primary was not on the replica yet.
    for (const outcome of outcomes.filter((o) => o.error)) {
      expect(outcome.error).toMatch(/INTERACTION_NOT_FOUND|INTERACTION_COMPLETED|SESSION_CHANGED|invalid_grant|answered 503/);
    }
    expect(outcomes.filter((o) => !o.error).length).toBeGreaterThanOrEqual(FLOWS / 2);

    // No code works twice, whichever primary consumed it.
    for (const { code, verifier } of codes) {
      expect((await exchange(provider, client.client_id, code, verifier)).status).toBe(400);
    }
    expect(provider.process.exitCode).toBeNull();
    expect(deadPort).not.toBe(group.replica.port);
  }, 120_000);
});
