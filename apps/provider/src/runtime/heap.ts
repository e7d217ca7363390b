/**
 * The V8 heap settings `signet provider` chooses when the operator gave none, for the peak
 * resident memory of a busy provider (bench/history.md has the measurements):
 *
 * - the young generation: semi-spaces of at most `SEMI_SPACE_MB` (8 MB on SQLite, 16 MB on Redis,
 *   Node 20's default). Node 22 and 24 let them grow to 64 MB each under load, which alone added
 *   ~80 MB to the peak. V8 reads this size only when the process starts, so once the settings are
 *   read `boundYoungGeneration` starts the same command again with the flag, in the same process
 *   (`process.execve`: same pid, same signals; nothing is listening yet). Where Node has no
 *   `process.execve` (Node 20, whose default is 16 MB; Node 22 before 22.15; Windows) it does nothing.
 * - heap growth: collect once the heap has grown `HEAP_GROWING_PERCENT` past its live data
 *   (`boundHeapGrowth`, at run time, SQLite, PostgreSQL and Redis storage).
 *
 * A setting of the operator's own, on the command line or in NODE_OPTIONS, always wins.
 */
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.ts';

/** The node options a process was given: its command line's and NODE_OPTIONS'. */
const givenOptions = (execArgv: readonly string[], env: NodeJS.ProcessEnv) => [
  ...execArgv,
  ...(env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
];

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again, per storage (V8 picks up to 4× on its own, which a busy provider whose live heap is ~50 MB
 * turned into 220–240 MB of resident memory under load). SQLite and PostgreSQL: 50 % (150–170 MB
 * for the same CPU on SQLite). Redis: 100 %: its requests' objects live across their round trips
 * and more reach the old generation, so 50 % cost 6–12 % more CPU per sign-in; side by side under
 * the flow benchmark (Node 20, 7 rounds), 100 % took 0.96× the CPU of 50 % (flows/s 1.03×) for a
 * peak of 164 MB against 148. Not a limit: the heap still grows as far as the live data needs.
 * Set for those storages only (memory storage keeps every record in the heap, which must grow with
 * it), and never over a heap setting of the operator's own (`--max-old-space-size`,
 * `--max-heap-size`, `--heap-growing-percent`). Returns the flag it set.
 */
export const HEAP_GROWING_PERCENT = { sqlite: 50, postgres: 50, redis: 100 } as const;
export function boundHeapGrowth(
  storage: Config['storage']['kind'],
  given: string[] = givenOptions(process.execArgv, process.env),
  set: (flag: string) => void = setFlagsFromString,
): string | undefined {
  if (storage === 'memory') return undefined;
  if (given.some((arg) => /^--(max[-_]old[-_]space[-_]size|max[-_]heap[-_]size|heap[-_]growing[-_]percent)\b/.test(arg))) {
    return undefined;
  }
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT[storage]}`;
  set(flag);
  return flag;
}

/**
 * The largest semi-space, in MB, per storage. Redis: 16, Node 20's default; side by side on Node 24
 * under the flow benchmark (7 rounds each, the same build started with each flag): 170 MB of peak
 * resident memory against 250 MB with Node's default, for 1.02–1.03× the CPU per sign-in; 8 MB
 * gave 155 MB for 1.07× (a request's objects live across its round trips, and a smaller young
 * generation promotes more of them). SQLite: 8; its requests do their storage work synchronously,
 * so their objects die young. Side by side on Node 24 (four servers in turn, two with each flag,
 * 4 rounds of 1,200): peak 172–173 MB against 183–189 MB with 16, idle 117 against 126–128 MB,
 * CPU per sign-in 1.007–1.013× against 1.000–1.067× (no cost above the noise); with Node's
 * default, 269 MB. Memory storage keeps Node's default: its heap holds every record (8 MB cost it
 * 1.03×). PostgreSQL: as Redis (its requests' objects live across round trips too; not measured apart).
 */
export const SEMI_SPACE_MB = { sqlite: 8, redis: 16, postgres: 16 } as const;

/** What `boundYoungGeneration` reads of the process (a parameter so tests can give another). */
export type NodeProcess = {
  execPath: string;
  execArgv: string[];
  argv: string[];
  env: NodeJS.ProcessEnv;
  execve?: (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;
};

/**
 * The command line that runs this process again with bounded semi-spaces (node, the flag, the
 * process's own node options, its script and arguments), or undefined when it needs none: memory
 * storage, Node cannot replace the process, or the operator sized the young generation
 * (`--max-semi-space-size`, `--min-semi-space-size`, `--max-heap-size`) on the command line or in
 * NODE_OPTIONS (the relaunched process has it on its command line, so it never relaunches again).
 */
export function boundedYoungGenerationArgs(storage: Config['storage']['kind'], node: NodeProcess): string[] | undefined {
  if (storage === 'memory' || typeof node.execve !== 'function') return undefined;
  const given = givenOptions(node.execArgv, node.env);
  if (given.some((arg) => /^--(max|min)[-_]semi[-_]space[-_]size\b|^--max[-_]heap[-_]size\b/.test(arg))) return undefined;
  return [node.execPath, `--max-semi-space-size=${SEMI_SPACE_MB[storage]}`, ...node.execArgv, ...node.argv.slice(1)];
}

/**
 * Starts this very command again with bounded semi-spaces (see above) and does not return; returns
 * when none is needed, or when the process may not be replaced (Node's permission model, say):
 * the provider then runs with V8's default.
 */
export function boundYoungGeneration(
  storage: Config['storage']['kind'],
  node: NodeProcess = process as unknown as NodeProcess,
): void {
  const args = boundedYoungGenerationArgs(storage, node);
  if (!args) return;
  try {
    node.execve?.(node.execPath, args, node.env);
  } catch {
    // not allowed here: run on as started
  }
}
