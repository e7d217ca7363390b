/**
 * A web server for Client ID Metadata Documents in tests: https on 127.0.0.1 with a throw-away
 * certificate (selfSignedCertificate; the provider process trusts it through NODE_EXTRA_CA_CERTS),
 * answering each path as told and counting the requests each path received.
 */

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

export type DocumentAnswer = {
  status?: number;
  /** A JSON value (sent as application/json) or raw text. */
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
};

export type DocumentServer = {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** The absolute URL of `path` on this server. */
  url(path: string): string;
  /** What `path` answers from now on. */
  serve(path: string, answer: DocumentAnswer): void;
  /** How many requests `path` received (every path when omitted). */
  requests(path?: string): number;
  close(): Promise<void>;
};

export async function startDocumentServer(tls: { key: string; cert: string }): Promise<DocumentServer> {
  const answers = new Map<string, DocumentAnswer>();
  const counts = new Map<string, number>();
  const server: Server = createServer(tls, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path) ?? { status: 404, body: 'not found', contentType: 'text/plain' };
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status ?? 200, {
      'content-type': answer.contentType ?? (typeof answer.body === 'string' ? 'text/plain' : 'application/json'),
      ...answer.headers,
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    serve: (path, answer) => answers.set(path, answer),
    requests: (path) => (path === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(path) ?? 0)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
