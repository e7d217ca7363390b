/** The order statistics the benchmarks report (measure.ts keeps the textbook median of its own). */

/** The middle value (the upper of the two middle ones for an even count); NaN for none. */
export const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The p-th percentile (nearest rank, from below); NaN for none. */
export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
