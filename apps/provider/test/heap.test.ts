import { describe, expect, it } from 'vitest';
import {
  boundedYoungGenerationArgs,
  boundHeapGrowth,
  boundYoungGeneration,
  HEAP_GROWING_PERCENT,
  type NodeProcess,
  SEMI_SPACE_MB,
} from '../src/runtime/heap.ts';

/** What runProvider tells V8 about heap growth (the peak-memory figures are in bench/BENCHMARKS.md). */
describe('boundHeapGrowth', () => {
  const run = (storage: 'memory' | 'sqlite' | 'postgres' | 'redis', given: string[]) => {
    const set: string[] = [];
    const flag = boundHeapGrowth(storage, given, (f) => set.push(f));
    return { flag, set };
  };

  it('bounds how far the heap grows past its live data: 50 % on SQLite and PostgreSQL, 100 % on Redis', () => {
    expect(HEAP_GROWING_PERCENT).toEqual({ sqlite: 50, postgres: 50, redis: 100 });
    for (const storage of ['sqlite', 'postgres', 'redis'] as const) {
      expect(run(storage, [])).toEqual({
        flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT[storage]}`,
        set: [`--heap-growing-percent=${HEAP_GROWING_PERCENT[storage]}`],
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
    expect(run('redis', ['--enable-source-maps', '--max-semi-space-size=8']).flag).toBe('--heap-growing-percent=100');
  });

  it('the flag is one V8 accepts at run time', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `require('node:v8').setFlagsFromString('--heap-growing-percent=${HEAP_GROWING_PERCENT.redis}'); console.log('ok')`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('ok');
  });
});

/** What `signet provider` does once its settings are read; the real relaunch is in e2e/production.test.ts. */
describe('boundYoungGeneration', () => {
  const node = (over: Partial<NodeProcess> = {}): NodeProcess => ({
    execPath: '/usr/bin/node',
    execArgv: ['--enable-source-maps'],
    argv: ['/usr/bin/node', '/app/apps/provider/bin/signet.js', 'provider'],
    env: {},
    execve: () => {
      throw new Error('execve called');
    },
    ...over,
  });

  it('starts the same command again with bounded semi-spaces, before its node options and script', () => {
    for (const [storage, mb] of [
      ['sqlite', 8],
      ['redis', 16],
    ] as const) {
      expect(SEMI_SPACE_MB[storage]).toBe(mb);
      expect(boundedYoungGenerationArgs(storage, node())).toEqual([
        '/usr/bin/node',
        `--max-semi-space-size=${mb}`,
        '--enable-source-maps',
        '/app/apps/provider/bin/signet.js',
        'provider',
      ]);
    }
    const calls: unknown[][] = [];
    const env = { NODE_OPTIONS: '--enable-source-maps' };
    boundYoungGeneration(
      'sqlite',
      node({
        env,
        execve: ((...args: unknown[]) => {
          calls.push(args);
        }) as unknown as NodeProcess['execve'],
      }),
    );
    expect(calls).toEqual([['/usr/bin/node', boundedYoungGenerationArgs('sqlite', node()), env]]);
  });

  it('leaves memory storage alone: its heap holds every record', () => {
    expect(boundedYoungGenerationArgs('memory', node())).toBeUndefined();
  });

  it("never overrides the operator's young generation or heap size, on the command line or in NODE_OPTIONS", () => {
    for (const given of [
      '--max-semi-space-size=64',
      '--max_semi_space_size=32',
      '--min-semi-space-size=4',
      '--max-heap-size=400',
    ]) {
      expect(boundedYoungGenerationArgs('sqlite', node({ execArgv: [given] })), given).toBeUndefined();
      expect(
        boundedYoungGenerationArgs('redis', node({ execArgv: [], env: { NODE_OPTIONS: `--trace-warnings ${given}` } })),
        given,
      ).toBeUndefined();
    }
    // The relaunched process carries the flag, so it never starts itself a third time.
    const relaunched = boundedYoungGenerationArgs('sqlite', node()) as string[];
    expect(boundedYoungGenerationArgs('sqlite', node({ execArgv: relaunched.slice(1, 3) }))).toBeUndefined();
  });

  it('does nothing where Node cannot replace the process (Node 20: its default is 16 MB already)', () => {
    expect(boundedYoungGenerationArgs('sqlite', node({ execve: undefined }))).toBeUndefined();
    expect(() => boundYoungGeneration('sqlite', node({ execve: undefined }))).not.toThrow();
  });

  it('runs on as started when the process may not be replaced', () => {
    expect(() => boundYoungGeneration('redis', node())).not.toThrow();
  });

  it('the flag is one this Node accepts at start', async () => {
    const { spawnSync } = await import('node:child_process');
    for (const mb of Object.values(SEMI_SPACE_MB)) {
      const result = spawnSync(process.execPath, [`--max-semi-space-size=${mb}`, '-e', "console.log('ok')"], {
        encoding: 'utf8',
      });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('ok');
    }
  });
});
