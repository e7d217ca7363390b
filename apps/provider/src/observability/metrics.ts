/** Prometheus metrics (prom-client), on a registry of this app's own, served at GET /metrics. */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { STORAGE_OPERATIONS, type StorageOperation } from '../storage/around.ts';

export type Metrics = {
  registry: Registry;
  signIn(result: string, method: string): void;
  verification(ms: number, method: string): void;
  tokenIssued(kind: string): void;
  storageError(operation: string): void;
  /** One operation that reached the storage (a batch once, however many writes it holds). */
  storageOperation(operation: StorageOperation, writes?: number): void;
  ensLookup(outcome: string): void;
  rateLimited(bucket: string): void;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'signet_process_' });
  const signIns = new Counter({
    name: 'signet_sign_ins_total',
    help: 'Sign-in attempts at POST /interaction/:uid, by result (success or error code) and wallet type',
    labelNames: ['result', 'method'],
    registers: [registry],
  });
  const verification = new Histogram({
    name: 'signet_siwe_verification_seconds',
    help: 'Time to parse, validate and verify a sign-in message, by wallet type',
    labelNames: ['method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'signet_tokens_issued_total',
    help: 'Tokens and codes issued, by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: 'signet_storage_errors_total',
    help: 'Requests that failed because storage was unavailable',
    labelNames: ['operation'],
    registers: [registry],
  });
  // Counted in plain numbers (26 or so per sign-in) and handed to prom-client at scrape time.
  const storageCounts = Object.fromEntries(STORAGE_OPERATIONS.map((op) => [op, 0])) as Record<StorageOperation, number>;
  let batchedWriteCount = 0;
  new Counter({
    name: 'signet_storage_operations_total',
    help: 'Operations that reached the storage, by operation: on SQLite each is one statement or one transaction, on Redis one command, or for a batch the commands of the writes of one request sent in one round trip',
    labelNames: ['operation'],
    registers: [registry],
    collect() {
      this.reset();
      for (const operation of STORAGE_OPERATIONS) this.inc({ operation }, storageCounts[operation]);
    },
  });
  new Counter({
    name: 'signet_storage_batched_writes_total',
    help: 'Writes stored inside batches (signet_storage_operations_total{operation="batch"})',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(batchedWriteCount);
    },
  });
  const ens = new Counter({
    name: 'signet_ens_lookups_total',
    help: 'ENS lookups by outcome (cache-hit, resolved, not-found, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'signet_rate_limited_total',
    help: 'Requests refused by a rate limit, by bucket',
    labelNames: ['bucket'],
    registers: [registry],
  });
  return {
    registry,
    signIn: (result, method) => signIns.inc({ result, method }),
    verification: (ms, method) => verification.observe({ method }, ms / 1000),
    tokenIssued: (kind) => tokens.inc({ kind }),
    storageError: (operation) => storageErrors.inc({ operation }),
    storageOperation: (operation, writes) => {
      storageCounts[operation] += 1;
      if (writes) batchedWriteCount += writes;
    },
    ensLookup: (outcome) => ens.inc({ outcome }),
    rateLimited: (bucket) => limited.inc({ bucket }),
  };
}
