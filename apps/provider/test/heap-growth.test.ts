import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from '../src/server.ts';

/** What runProvider tells V8 about heap growth (the peak-memory figures are in bench/BENCHMARKS.md). */
describe('boundHeapGrowth', () => {
  const run = (storage: 'memory' | 'sqlite' | 'redis', given: string[]) => {
    const set: string[] = [];
    const flag = boundHeapGrowth(storage, given, (f) => set.push(f));
    return { flag, set };
  };

  it('bounds how far the heap grows past its live data, on SQLite and Redis', () => {
    for (const storage of ['sqlite', 'redis'] as const) {
      expect(run(storage, [])).toEqual({
        flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
        set: [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`],
      });
    }
  });

  it('leaves memory storage alone: its heap holds every record and must grow with them', () => {
    expect(run('memory', [])).toEqual({ flag: undefined, set: [] });
  });

  it("never overrides the operator's own heap settings, on the command line or in NODE_OPTIONS", () => {
    for (const given of [
      ['--max-old-space-size=512'],
      ['--max_old_space_size=512'],
      ['--heap-growing-percent=20'],
      ['--enable-source-maps', '--max-heap-size=300'],
    ]) {
      expect(run('sqlite', given), given.join(' ')).toEqual({ flag: undefined, set: [] });
    }
    // Other flags do not count as a heap setting.
    expect(run('redis', ['--enable-source-maps', '--max-semi-space-size=8']).flag).toBe('--heap-growing-percent=50');
  });

  it('the flag is one V8 accepts at run time', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `require('node:v8').setFlagsFromString('--heap-growing-percent=${HEAP_GROWING_PERCENT}'); console.log('ok')`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('ok');
  });
});
