/**
 * A burst of new Client ID Metadata Documents cannot exhaust a provider's memory: the built
 * provider process (memory storage, trusting a throw-away CA through NODE_EXTRA_CA_CERTS, loopback
 * fetches allowed) is asked to authorize for thousands of distinct document URLs, valid ones and
 * ones that answer 404, in nine bursts, each on hosts of its own (a process fetches at most 10
 * documents per host a minute). What it holds of documents is bounded in entries (100 clients,
 * 1,000 refusals), so its memory levels off. What a burst leaves behind is mostly garbage (TLS
 * connections, error pages), which V8 may leave uncollected for many bursts on a fast host; so
 * after each burst the provider runs a full collection (it loads bench/full-gc.mjs), and the goals
 * are on what it then holds: bursts 7 to 9 add at most 10 MB to the heap held after the first six,
 * and at most 10 MB of RSS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DocumentServer, selfSignedCertificate, startDocumentServer } from '@signet/testkit';
import { freePort } from '@signet/testkit/ports';
import type { Section } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const HOSTS = Number(process.env.BENCH_DOCUMENT_HOSTS ?? 20);
const BURSTS = Number(process.env.BENCH_DOCUMENT_BURSTS ?? 9);
/** The bursts whose RSS is compared: the heap grows to its working size (and V8 first collects it whole) during the first ones. */
const SETTLED = 6;
/** Per host: the most a process fetches from one host in a minute (FETCHES_PER_HOST). */
const VALID_PER_HOST = 10;
const BAD_PER_HOST = Number(process.env.BENCH_BAD_DOCUMENTS_PER_HOST ?? 25);
const CONCURRENCY = 16;
const PLATEAU_GOAL_MB = 10;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** V8's full collection in the provider (bench/full-gc.mjs), then what it still holds, MB. */
async function fullCollection(url: string): Promise<{ heap: number; rss: number }> {
  const { heapUsed, rss } = (await (await fetch(`${url}/__full-gc`)).json()) as { heapUsed: number; rss: number };
  return { heap: heapUsed / 2 ** 20, rss: rss / 2 ** 20 };
}

async function startProvider(certFile: string) {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', './bench/full-gc.mjs', 'apps/provider/bin/signet.js', 'provider'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        ISSUER: url,
        STORAGE_URL: 'memory:',
        LOG_LEVEL: 'warn',
        NODE_EXTRA_CA_CERTS: certFile,
        ALLOW_PRIVATE_FETCH: 'true',
        RATE_LIMIT_AUTHORIZATION: '0',
      },
      stdio: 'ignore',
    },
  );
  const started = performance.now();
  while (
    !(await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (performance.now() - started > 30_000) throw new Error('the provider did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url, child };
}

/** GET /auth for each client_id (without PKCE), `CONCURRENCY` at a time; the statuses seen. */
async function authorizeAll(url: string, clientIds: string[]) {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < clientIds.length) {
        const clientId = clientIds[next++] as string;
        // No PKCE: refused once the client is resolved, so no sign-in (an interaction record) is
        // started and what the process holds afterwards is what the documents left.
        const query = new URLSearchParams({
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:4999/callback',
          response_type: 'code',
          scope: 'openid',
        });
        const response = await fetch(`${url}/auth?${query}`, { redirect: 'manual', headers: { accept: 'application/json' } });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

/** One burst's documents, on hosts of its own: the valid ones (served) and the missing ones. */
async function burstDocuments(tls: { key: string; cert: string }, servers: DocumentServer[]) {
  const mine: DocumentServer[] = [];
  for (let i = 0; i < HOSTS; i++) mine.push(await startDocumentServer(tls));
  servers.push(...mine);
  const valid = mine.flatMap((server) =>
    Array.from({ length: VALID_PER_HOST }, (_, i) => {
      const path = `/client-${i}.json`;
      const clientId = server.url(path);
      server.serve(path, {
        body: { client_id: clientId, client_name: `Client ${i}`, redirect_uris: ['http://127.0.0.1:4999/callback'] },
        headers: { 'cache-control': 'max-age=86400' },
      });
      return clientId;
    }),
  );
  const bad = mine.flatMap((server) => Array.from({ length: BAD_PER_HOST }, (_, i) => server.url(`/missing-${i}.json`)));
  return [...valid, ...bad];
}

export async function metadataDocumentBurst(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-cimd-'));
  const servers: DocumentServer[] = [];
  let child: ChildProcess | undefined;
  try {
    const tls = selfSignedCertificate(dir);
    const provider = await startProvider(tls.certFile);
    child = provider.child;
    await new Promise((r) => setTimeout(r, 1000));
    const rows: string[][] = [];
    const idle = await fullCollection(provider.url);
    const rss: number[] = [idle.rss];
    const retained: number[] = [idle.heap];
    for (let burst = 1; burst <= BURSTS; burst++) {
      const clientIds = await burstDocuments(tls, servers);
      const fetchedBefore = servers.reduce((sum, server) => sum + server.requests(), 0);
      const statuses = await authorizeAll(provider.url, clientIds);
      const fetched = servers.reduce((sum, server) => sum + server.requests(), 0) - fetchedBefore;
      const rssBefore = rssMb(child.pid as number);
      const metrics = await (await fetch(`${provider.url}/metrics`)).text();
      const heap = Number(/^signet_process_nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1]) / 2 ** 20;
      const after = await fullCollection(provider.url);
      rss.push(after.rss);
      retained.push(after.heap);
      rows.push([
        `burst ${burst}: ${HOSTS * VALID_PER_HOST} valid, ${HOSTS * BAD_PER_HOST} answering 404, on ${HOSTS} new hosts`,
        [...statuses].map(([status, n]) => `${n} × ${status}`).join(', '),
        String(fetched),
        rssBefore.toFixed(0),
        heap.toFixed(0),
        after.heap.toFixed(1),
        after.rss.toFixed(0),
      ]);
    }
    const plateau = (rss.at(-1) as number) - (rss[SETTLED] as number);
    const heldMore = (retained.at(-1) as number) - (retained[SETTLED] as number);
    return {
      title: 'Client ID Metadata Documents: bursts of new documents',
      table: {
        head: [
          'documents asked for',
          'answers',
          'fetched',
          'RSS after MB',
          'heap used MB (garbage included)',
          'heap held MB (after a full collection)',
          'RSS after the collection MB',
        ],
        rows: [
          ['(idle, after start)', '', '', '', '', (retained[0] as number).toFixed(1), (rss[0] as number).toFixed(0)],
          ...rows,
        ],
      },
      checks: [
        {
          name: `heap held after a full collection, added by bursts ${SETTLED + 1} to ${BURSTS}`,
          value: heldMore,
          display: `${heldMore.toFixed(1)} MB`,
          target: `≤ ${PLATEAU_GOAL_MB} MB`,
          pass: heldMore <= PLATEAU_GOAL_MB,
        },
        {
          name: `RSS added by bursts ${SETTLED + 1} to ${BURSTS} (each burst followed by a full collection)`,
          value: plateau,
          display: `${plateau.toFixed(1)} MB`,
          target: `≤ ${PLATEAU_GOAL_MB} MB`,
          pass: plateau <= PLATEAU_GOAL_MB,
        },
      ],
      notes: [
        `The built provider, memory storage; each document asked for once (GET /auth) at concurrency ${CONCURRENCY}. A process holds at most 100 clients made from documents and 1,000 refusals, and fetches at most 10 documents per host a minute (the rest are refused unfetched).`,
      ],
    };
  } finally {
    child?.kill('SIGTERM');
    for (const server of servers) await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
