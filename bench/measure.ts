/**
 * Interleaved measurement for noisy machines: every task runs in short slices, one after
 * the other, for several rounds; a task's figure is the median of its per-round rates, and a
 * ratio is the median of per-round ratios, so a burst of load hits all tasks alike.
 */
import { middle as median } from './stats.ts';

export type Task = { name: string; fn: () => unknown };
export type Measured = { name: string; opsPerSec: number; meanMicros: number; p99Micros: number; rounds: number[] };

export async function measure(tasks: Task[], { rounds = 15, sliceMs = 150, warmupMs = 300 } = {}) {
  for (const task of tasks) {
    const end = performance.now() + warmupMs;
    while (performance.now() < end) await task.fn();
  }
  const perRound = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  const samples = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const task of tasks) {
      const durations = samples.get(task.name) as number[];
      let count = 0;
      const start = performance.now();
      let now = start;
      while (now - start < sliceMs) {
        const before = now;
        await task.fn();
        now = performance.now();
        durations.push(now - before);
        count += 1;
      }
      perRound.get(task.name)?.push((count * 1000) / (now - start));
    }
  }
  const results = new Map<string, Measured>();
  for (const task of tasks) {
    const durations = (samples.get(task.name) as number[]).sort((a, b) => a - b);
    const rates = perRound.get(task.name) as number[];
    results.set(task.name, {
      name: task.name,
      opsPerSec: median(rates),
      meanMicros: (durations.reduce((a, b) => a + b, 0) / durations.length) * 1000,
      p99Micros: (durations[Math.floor(durations.length * 0.99)] as number) * 1000,
      rounds: rates,
    });
  }
  /** Median over rounds of a's rate divided by b's rate. */
  const ratio = (a: string, b: string) => {
    const ra = results.get(a)?.rounds ?? [];
    const rb = results.get(b)?.rounds ?? [];
    return median(ra.map((value, i) => value / (rb[i] as number)));
  };
  return { results: [...results.values()], ratio };
}
