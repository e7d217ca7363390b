/**
 * A JSON-RPC proxy on loopback in front of a node: it counts the HTTP requests that reach it
 * (a JSON-RPC batch is one), can answer each after a fixed delay (a node far away: the bench's
 * round trips), and can hold chosen requests until a condition is met (tests of what runs
 * concurrently, without timing).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call as the proxy sees it (a batch is several). */
export type RpcCall = { method: string; params?: unknown[] };

export type RpcProxy = {
  url: string;
  /** HTTP requests forwarded so far. */
  readonly requests: number;
  /** Every call forwarded so far, in arrival order. */
  readonly calls: RpcCall[];
  /** The delay before each request is forwarded (ms); may be changed at any time. */
  delayMs: number;
  close(): Promise<void>;
};

export type RpcProxyOptions = {
  /** Delay before each request is forwarded (ms). */
  delayMs?: number;
  /** Holds a request while this answers true (asked again as each request arrives; released anyway after 10 s). */
  hold?: (calls: RpcCall[], seen: RpcCall[]) => boolean;
};

export async function startRpcProxy(target: string, options: RpcProxyOptions = {}): Promise<RpcProxy> {
  const seen: RpcCall[] = [];
  let delayMs = options.delayMs ?? 0;
  let requests = 0;
  const waiting = new Set<() => void>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let calls: RpcCall[] = [];
    try {
      const parsed = JSON.parse(body.toString('utf8')) as RpcCall | RpcCall[];
      calls = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      // forwarded as it is: the node answers the parse error
    }
    requests++;
    seen.push(...calls);
    for (const wake of waiting) wake();
    if (options.hold?.(calls, seen)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 10_000);
        function done() {
          clearTimeout(timer);
          waiting.delete(check);
          resolve();
        }
        function check() {
          if (!options.hold?.(calls, seen)) done();
        }
        waiting.add(check);
      });
    }
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    calls: seen,
    get delayMs() {
      return delayMs;
    },
    set delayMs(value: number) {
      delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
