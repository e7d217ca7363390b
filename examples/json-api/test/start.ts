/** Application B on a free loopback port over real HTTP, for the tests of its kinds of message. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { freePort } from '@signet/testkit';
import { buildJsonApi, loadJsonApiConfig } from '../src/index.ts';

export type Running = { url: string; port: number; close(): void };

/** Application B with `env` (NODE_ENV=test and a free PORT set), listening on 127.0.0.1. */
export async function start(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const api = buildJsonApi(loadJsonApiConfig({ NODE_ENV: 'test', PORT: String(port), ...env }));
  return new Promise((resolve) => {
    const server = serve({ fetch: api.app.fetch, port, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, port: info.port, close: () => server.close() }),
    );
  });
}
