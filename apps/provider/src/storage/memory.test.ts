import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.ts';

describe('memory store', () => {
  it('sweeps expired values and sets, and keeps what has not expired or has no expiry', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = createMemoryStore(() => now);
    await store.set('short', 'a', 1);
    await store.set('long', 'b', 3600);
    await store.set('forever', 'c');
    await store.addToSet('set:short', 'm', 1);
    await store.addToSet('set:long', 'm', 3600);
    expect(store.sweep()).toBe(0);
    now += 2000;
    expect(store.sweep()).toBe(2);
    expect(store.sweep()).toBe(0);
    expect(await store.getMany(['short', 'long', 'forever'])).toEqual([undefined, 'b', 'c']);
    expect(await store.members('set:long')).toEqual(['m']);
    await store.close();
  });

  it('sweeps on its own timer', async () => {
    let now = Date.now();
    const store = createMemoryStore(() => now, { sweepIntervalMs: 20 });
    await store.set('short', 'a', 1);
    now += 2000;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.sweep()).toBe(0);
    await store.close();
  });
});
