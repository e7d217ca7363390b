/**
 * Two provider processes, both up, measured one at a time in rounds: each round, each runs
 * FLOWS complete sign-ins alone (the other idle), the order swapped every round, and a ratio is
 * the median over rounds of the ratio within a round. The stored-records and many-clients
 * benchmarks compare Signet against itself this way (a seeded store against an empty one, 100,000
 * clients against one): measured in phases of their own, minutes apart, a change in the host's
 * speed between the phases moved their ratios by ±0.2 (the whole run of 2026-12-03 17:16, and a
 * PostgreSQL-only rerun that read 0.77× at 100,000 records and 1.11× at 1,000,000).
 *
 * A server's work between its turns (a sweep, a collection of its heap) falls in the other's
 * turn, where it slows the other down: so each server's CPU is also read over the whole window,
 * its idle turns included, and divided by every flow it served.
 */
import { cpuMs, drive, type startServer } from './flow.ts';
import { median, middle } from './stats.ts';

type Server = Awaited<ReturnType<typeof startServer>>;
const CONCURRENCY = 16;
/** The driver's own unmeasured flows before each run (flow-driver.ts): they reach the server too. */
const DRIVER_WARMUP = 100;

/** One server's figures over the rounds: medians of its runs, and its CPU over the whole window. */
export type Side = {
  flowsPerSecond: number;
  p99: number;
  cpuMsPerFlow: number;
  /** Every flow it served, measured or not. */
  flows: number;
  /** The process's CPU from the first round's start to the last one's end, over every flow it served. */
  windowCpuMsPerFlow: number;
};
export type InTurns = {
  reference: Side;
  subject: Side;
  /** Medians over rounds of the subject's figure over the reference's in the same round. */
  ratio: { flowsPerSecond: number; p99: number; cpuMsPerFlow: number; windowCpuMsPerFlow: number };
  rounds: number;
  seconds: number;
};

export type TurnOptions = {
  flows: number;
  /** Rounds to run; with `seconds`, at least this many, and more until the time is up. */
  rounds: number;
  seconds?: number;
  /** CLIENTS for the driver, per server (flow-driver.ts): sign in to stored clients picked at random. */
  clients?: { reference?: string; subject?: string };
  /** Called around each of the subject's runs (a storage's size before and after). */
  aroundSubject?: { before(): Promise<void>; after(): Promise<void> };
};

const ratioOf = (a: number[], b: number[]) => middle(a.map((value, i) => value / (b[i] as number)));

export async function inTurns(reference: Server, subject: Server, options: TurnOptions): Promise<InTurns> {
  const pids = { reference: reference.child.pid as number, subject: subject.child.pid as number };
  const runs = { reference: [] as Awaited<ReturnType<typeof drive>>[], subject: [] as Awaited<ReturnType<typeof drive>>[] };
  const cpuBefore = { reference: cpuMs(pids.reference), subject: cpuMs(pids.subject) };
  const started = performance.now();
  const until = options.seconds === undefined ? 0 : started + options.seconds * 1000;
  const one = async (side: 'reference' | 'subject') => {
    const server = side === 'reference' ? reference : subject;
    if (side === 'subject') await options.aroundSubject?.before();
    runs[side].push(
      await drive('signet', server.url, CONCURRENCY, [pids[side]], '1', options.flows, undefined, 0, options.clients?.[side]),
    );
    if (side === 'subject') await options.aroundSubject?.after();
  };
  for (let round = 0; round < options.rounds || performance.now() < until; round++) {
    const order = round % 2 === 0 ? (['reference', 'subject'] as const) : (['subject', 'reference'] as const);
    for (const side of order) await one(side);
  }
  const side = (name: 'reference' | 'subject'): Side => {
    const flows = runs[name].length * (options.flows + DRIVER_WARMUP);
    return {
      flowsPerSecond: median(runs[name].map((r) => r.flowsPerSecond)),
      p99: median(runs[name].map((r) => r.p99)),
      cpuMsPerFlow: median(runs[name].map((r) => r.cpuMsPerFlow)),
      flows,
      windowCpuMsPerFlow: (cpuMs(pids[name]) - cpuBefore[name]) / flows,
    };
  };
  const [ref, sub] = [side('reference'), side('subject')];
  const pick = (key: 'flowsPerSecond' | 'p99' | 'cpuMsPerFlow') =>
    ratioOf(
      runs.subject.map((r) => r[key]),
      runs.reference.map((r) => r[key]),
    );
  return {
    reference: ref,
    subject: sub,
    ratio: {
      flowsPerSecond: pick('flowsPerSecond'),
      p99: pick('p99'),
      cpuMsPerFlow: pick('cpuMsPerFlow'),
      windowCpuMsPerFlow: sub.windowCpuMsPerFlow / ref.windowCpuMsPerFlow,
    },
    rounds: runs.subject.length,
    seconds: (performance.now() - started) / 1000,
  };
}
