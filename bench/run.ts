/**
 * `npm run bench`: runs every benchmark, prints a table, and rewrites BENCHMARKS.md.
 * Targets are reported, not enforced: a missed target is a finding to record, and the
 * exit code stays 0 unless a benchmark itself fails.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { capacity } from './capacity.ts';
import { manyClients } from './clients.ts';
import { delayedRpcSignIn } from './delayed-rpc.ts';
import { compareBuilds, scaleBenchmark, tracingCost } from './flow.ts';
import { gatedSignIn } from './gated.ts';
import { jwtBearer } from './jwt-bearer.ts';
import { metadataDocumentSignIns } from './metadata-document-sign-ins.ts';
import { metadataDocumentBurst } from './metadata-documents.ts';
import { pageSize } from './page-size.ts';
import { processFootprint } from './process.ts';
import { storedRecords } from './records.ts';
import { type Section, toConsole, toMarkdown } from './report.ts';
import { requestCosts } from './request-costs.ts';
import { setGrowth } from './sets.ts';
import { flowBenchmark } from './sign-ins.ts';
import { siweVerify } from './siwe-verify.ts';
import { siwsVerify } from './siws-verify.ts';
import { walletGas } from './wallet-gas.ts';

const only = process.argv.slice(2);
const all: Record<string, () => Promise<Section>> = {
  siweVerify,
  siwsVerify,
  pageSize,
  processFootprint,
  gatedSignIn,
  delayedRpcSignIn,
  walletGas,
  flowBenchmark,
  requestCosts,
  jwtBearer,
  scaleBenchmark,
  tracingCost,
  storedRecords,
  setGrowth,
  manyClients,
  metadataDocumentBurst,
  metadataDocumentSignIns,
  capacity,
};
// Run only when named: it needs BENCH_BASELINE, another build to compare with.
const onDemand: Record<string, () => Promise<Section>> = { compareBuilds };
const benchmarks = [...Object.entries(all), ...Object.entries(onDemand)].filter(([name]) =>
  only.length === 0 ? name in all : only.includes(name),
);

const sections: Section[] = [];
const failed: string[] = [];
const started = performance.now();
for (const [name, benchmark] of benchmarks) {
  const t = performance.now();
  // A benchmark that fails is reported and the others still run (a whole run is long).
  try {
    const section = await benchmark();
    sections.push(section);
    console.error(`bench: ${name} took ${((performance.now() - t) / 1000).toFixed(0)} s\n${toConsole([section])}\n`);
  } catch (error) {
    failed.push(name);
    console.error(`bench: ${name} failed after ${((performance.now() - t) / 1000).toFixed(0)} s:`, error);
  }
}
if (failed.length > 0) process.exitCode = 1;
console.log(toConsole(sections));
// A subset writes no BENCHMARKS.md: its notes (how it measured, per-round figures, the storage
// table) are printed instead.
if (only.length > 0) for (const section of sections) for (const note of section.notes ?? []) console.log(`\n${note}`);
// No goal on the time itself: a whole run is about an hour on a 2-vCPU host (the flow benchmark's
// rounds, stored records, 100,000 clients), a single benchmark seconds to minutes.
console.log(`\n${only.length > 0 ? 'this run' : 'whole run'}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
// A subset (`npm run bench -- gatedSignIn`) only prints: BENCHMARKS.md always holds a whole run.
if (only.length === 0 && failed.length === 0) {
  const file = join(import.meta.dirname, 'BENCHMARKS.md');
  const history = readFileSync(join(import.meta.dirname, 'history.md'), 'utf8');
  writeFileSync(file, `${toMarkdown(sections, new Date())}\n${history}`);
  console.log(`\nwrote ${file}`);
}
// A failed benchmark may leave a connection open: the run ends here either way.
process.exit();
