/**
 * A sign-in by a client known by its Client ID Metadata Document, once the document is cached,
 * against the same sign-in by a registered client, on one built provider (SQLite, the default
 * storage): the same driver and flow as the sign-in benchmark, the two clients taking turns in
 * rounds on the same server, ratios the medians of the ratios within a round. The document is
 * served over HTTPS on loopback (a throw-away CA the provider trusts through NODE_EXTRA_CA_CERTS,
 * ALLOW_PRIVATE_FETCH for the loopback address) with an hour's Cache-Control, so after the first
 * sign-in the provider answers from the client it holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DocumentServer, selfSignedCertificate, startDocumentServer } from '@signet/testkit';
import { drive, type Run, startServer, stopServers, WARMUP } from './flow.ts';
import type { Section } from './report.ts';
import { median } from './stats.ts';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 1200);
const ROUNDS = Number(process.env.BENCH_REPEATS ?? 3);
const CONCURRENCY = 16;
/** The redirect URI the flow driver uses (bench/flow-driver.ts). */
const REDIRECT_URI = 'http://127.0.0.1:4999/callback';

/** A document at `<origin>/client0`: the flow driver's CLIENTS=<prefix>1 signs in to `<prefix>0`. */
function serveDocument(server: DocumentServer): string {
  const clientId = server.url('/client0');
  server.serve('/client0', {
    body: {
      client_id: clientId,
      client_name: 'Benchmark MCP client',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
    headers: { 'cache-control': 'max-age=3600' },
  });
  return server.url('/client1');
}

export async function metadataDocumentSignIns(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-cimd-flows-'));
  const tls = selfSignedCertificate(dir);
  const documents = await startDocumentServer(tls);
  const pool = serveDocument(documents).slice(0, -1);
  const runs: Record<'registered' | 'document', Run[]> = { registered: [], document: [] };
  const server = await startServer('signet', 'sqlite', dir, {
    env: { NODE_EXTRA_CA_CERTS: tls.certFile, ALLOW_PRIVATE_FETCH: 'true', CLIENT_ID_METADATA_DOCUMENTS: 'true' },
  });
  try {
    const pid = server.child.pid as number;
    const run = (clients?: string) => drive('signet', server.url, CONCURRENCY, [pid], '1', FLOWS, undefined, 0, clients);
    await drive('signet', server.url, CONCURRENCY, [pid], '1', WARMUP);
    await drive('signet', server.url, CONCURRENCY, [pid], '1', WARMUP / 2, undefined, 0, `${pool}1`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? (['registered', 'document'] as const) : (['document', 'registered'] as const)) {
        runs[kind].push(await run(kind === 'document' ? `${pool}1` : undefined));
      }
    }
  } finally {
    await stopServers([server]);
    await documents.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const fetched = documents.requests('/client0');
  const ratio = (pick: (run: Run) => number) =>
    median(runs.document.map((run, i) => pick(run) / pick(runs.registered[i] as Run)));
  const cpu = ratio((run) => run.cpuMsPerFlow);
  const row = (kind: keyof typeof runs) => [
    kind === 'document' ? 'client known by its metadata document (cached)' : 'registered client',
    median(runs[kind].map((run) => run.flowsPerSecond)).toFixed(0),
    median(runs[kind].map((run) => run.cpuMsPerFlow)).toFixed(2),
    median(runs[kind].map((run) => run.p99)).toFixed(0),
  ];
  return {
    title: 'Client ID Metadata Documents: a sign-in by a cached document’s client',
    table: { head: ['client', 'flows/s', 'CPU ms per flow', 'p99 ms'], rows: [row('registered'), row('document')] },
    checks: [
      {
        name: 'CPU per sign-in, cached metadata document client / registered client',
        value: cpu,
        display: `${cpu.toFixed(2)}× (flows/s ${ratio((run) => run.flowsPerSecond).toFixed(2)}×)`,
        target: '≤ 1.1×',
        pass: cpu <= 1.1,
      },
    ],
    notes: [
      `The built provider on SQLite, server on core 0 and driver on core 1, concurrency ${CONCURRENCY}, ${WARMUP} warm-up flows with the registered client and ${WARMUP / 2} with the document's, then ${ROUNDS} rounds of ${FLOWS} flows each, the two clients in turn. The document was fetched ${fetched} time(s) in all.`,
    ],
  };
}
