/**
 * Liveness and readiness on a real provider process: what each probe says while the process
 * runs, while its Redis is down, and from the moment SIGTERM arrives (readiness 503 at once,
 * requests still served for the drain delay, then exit 0). And the deployment files (Dockerfile,
 * compose.yaml, the Kubernetes example) use those probes, with a grace period that covers the drain.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@signet/provider';
import { CookieJar, followToClient, getDetails, messageFor, postSignature, startInteraction } from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationUrl, exchange, registerPublicClient } from './flows.ts';
import { freePort, type RedisServer, type Replica, startRedis, startReplica } from './processes.ts';

const ROOT = join(import.meta.dirname, '..');

const json = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: await response.json(), headers: response.headers };
};

describe('probes on a running provider', () => {
  let redis: RedisServer;
  let replica: Replica;
  beforeAll(async () => {
    redis = await startRedis();
    const port = await freePort();
    replica = await startReplica(
      {
        ISSUER: `http://localhost:${port}`,
        STORAGE_URL: redis.url,
        STORAGE_PREFIX: `signet-health:${randomUUID()}:`,
        SHUTDOWN_DRAIN_MS: '0',
      },
      port,
    );
  });
  afterAll(async () => {
    await replica?.stop();
    await redis?.stop();
  });

  it('live and ready while everything answers; /health keeps its answer', async () => {
    expect(await json(`${replica.url}/health/live`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await json(`${replica.url}/health/ready`);
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', storage: 'ok', keys: 'ok' } });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await json(`${replica.url}/health`)).toMatchObject({
      status: 200,
      body: { status: 'ok', storage: 'ok', profile: 'self-hosted' },
    });
  });

  it('storage down: not ready, still live; ready again when Redis is back', async () => {
    await redis.stop();
    try {
      expect(await json(`${replica.url}/health/ready`)).toMatchObject({
        status: 503,
        body: { status: 'unavailable', storage: 'unavailable', keys: 'ok' },
      });
      expect(await json(`${replica.url}/health/live`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await redis.start();
    }
    await expect.poll(async () => (await fetch(`${replica.url}/health/ready`)).status, { timeout: 10_000 }).toBe(200);
  });
});

describe('SIGTERM: readiness turns 503 at once, requests are served through the drain, then exit 0', () => {
  it('a sign-in started before SIGTERM completes during the drain; the process then exits 0', async () => {
    const port = await freePort();
    const replica = await startReplica(
      // A drain longer than the default 5 s, so a slow machine still fits the sign-in inside it.
      { ISSUER: `http://localhost:${port}`, STORAGE_URL: 'memory:', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '8000' },
      port,
    );
    try {
      const { client_id: clientId } = await registerPublicClient(replica);
      const { url, verifier } = await authorizationUrl(replica, clientId);
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, url);
      const account = privateKeyToAccount(generatePrivateKey());

      replica.process.kill('SIGTERM');
      await expect
        .poll(async () => (await fetch(`${replica.url}/health/ready`)).status, { timeout: 5_000, interval: 20 })
        .toBe(503);
      const draining = await json(`${replica.url}/health/ready`);
      expect(draining.body).toMatchObject({ status: 'draining' });
      expect(draining.headers.get('connection')).toBe('close');
      expect(await json(`${replica.url}/health/live`)).toMatchObject({ status: 200 });

      // The sign-in goes on, through the drain: details, signature, code, token.
      const details = await getDetails(jar, interactionUrl);
      const message = messageFor(details, account.address);
      const posted = await postSignature(jar, interactionUrl, { message, signature: await account.signMessage({ message }) });
      expect(posted.status).toBe(303);
      const callback = await followToClient(jar, interactionUrl, posted.headers.get('location') as string);
      const token = await exchange(replica, clientId, callback.searchParams.get('code') as string, verifier);
      expect(token.status).toBe(200);

      expect(await replica.exited).toBe(0);
      await expect(fetch(`${replica.url}/health/live`)).rejects.toThrow();
      expect(replica.output()).toMatch(/draining: \/health\/ready answers 503/);
    } finally {
      await replica.stop();
    }
  }, 45_000);
});

describe('deployment files use the probes', () => {
  it('the drain is a few seconds by default (SHUTDOWN_DRAIN_MS)', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(5_000);
  });

  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

  it('the Dockerfile and compose.yaml check readiness', () => {
    expect(read('Dockerfile')).toMatch(/HEALTHCHECK[^\n]*\\\n[^\n]*\/health\/ready/);
    const compose = read('compose.yaml');
    expect(compose.match(/healthcheck:\n\s+test:\s*\[[^\]]*\/health\/ready/g)).toHaveLength(2);
  });

  it('the Kubernetes Deployment has both probes, a Service and a Secret, and a grace period longer than the drain', () => {
    const deployment = read('deploy/kubernetes/deployment.yaml');
    expect(deployment).toMatch(/livenessProbe:\n\s+httpGet: \{ path: \/health\/live, port: http \}/);
    expect(deployment).toMatch(/readinessProbe:\n\s+httpGet: \{ path: \/health\/ready, port: http \}/);
    expect(deployment).toMatch(/secretRef: \{ name: signet-settings \}/);
    const secret = read('deploy/kubernetes/secret.yaml');
    expect(secret).toMatch(/kind: Secret\n[\s\S]*name: signet-settings/);
    expect(read('deploy/kubernetes/service.yaml')).toMatch(/kind: Service[\s\S]*targetPort: http/);
    const setting = (name: string) => Number(new RegExp(`${name}: "(\\d+)"`).exec(secret)?.[1]);
    const grace = Number(/terminationGracePeriodSeconds: (\d+)/.exec(deployment)?.[1]);
    expect(setting('SHUTDOWN_DRAIN_MS')).toBeGreaterThan(0);
    expect(grace * 1000).toBeGreaterThan(setting('SHUTDOWN_DRAIN_MS') + setting('SHUTDOWN_TIMEOUT_MS'));
  });
});
