/**
 * Slow clients (slowloris): a connection that sends its request a byte at a time must lose the
 * connection once the server's deadlines pass, and the provider keeps serving everyone else.
 * The provider runs as `signet provider` starts it (startProvider), with the deadlines shortened
 * so the test takes seconds; the defaults are checked on a second start.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { type Config, createLogger, loadConfig, SERVER_TIMEOUTS, startProvider } from '@signet/provider';
import { freePort } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

async function configOn(): Promise<Config> {
  const port = await freePort();
  return loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    ISSUER: `http://localhost:${port}`,
    STORAGE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SHUTDOWN_DRAIN_MS: '0',
  });
}

/** Opens a connection, sends `head`, then one more `drip` every 100 ms; resolves when the server closes it. */
function slowClient(port: number, head: string, drip: string): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      if (head) socket.write(head);
      timer = setInterval(() => socket.writable && socket.write(drip), 100);
    });
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
  });
}

describe('slow clients', () => {
  const timeouts = { headersMs: 600, requestMs: 1_500, checkIntervalMs: 100 };
  let running: Awaited<ReturnType<typeof startProvider>>;
  let port: number;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      );
      done();
    },
  });

  beforeAll(async () => {
    const config = await configOn();
    port = config.port;
    running = await startProvider(config, createLogger('info', sink), timeouts);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('headers sent a line at a time: 408 and closed once the headers deadline passes', async () => {
    const result = await slowClient(port, 'GET /.well-known/openid-configuration HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n');
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(timeouts.headersMs - 50);
    expect(result.closedAfterMs).toBeLessThan(timeouts.headersMs + 1_000);
  });

  it('a connection that sends nothing is closed too', async () => {
    const result = await slowClient(port, '', '');
    expect(result.closedAfterMs).toBeLessThan(timeouts.headersMs + 1_000);
  });

  it('a sign-in body sent a byte at a time: 408 and closed once the request deadline passes; others are served meanwhile', async () => {
    const slow = slowClient(
      port,
      'POST /interaction/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"message":"',
      'a',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const meanwhile = await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
    expect(meanwhile.status).toBe(200);
    const result = await slow;
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(timeouts.requestMs - 50);
    expect(result.closedAfterMs).toBeLessThan(timeouts.requestMs + 1_000);
    expect((await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).status).toBe(200);
    // Logged as one JSON line with the request id, not as a stack on stderr.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ended = lines.find((line) => line.reason === 'ERR_HTTP_REQUEST_TIMEOUT');
    expect(ended).toMatchObject({ level: 30, msg: expect.stringMatching(/^connection ended before the answer/) });
    expect(ended?.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  it('by default: headers within 10 s, the whole request within 30 s, checked every second', async () => {
    expect(SERVER_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 });
    const defaults = await startProvider(await configOn());
    try {
      expect(defaults.server.headersTimeout).toBe(10_000);
      expect(defaults.server.requestTimeout).toBe(30_000);
    } finally {
      await defaults.stop();
    }
  });
});
