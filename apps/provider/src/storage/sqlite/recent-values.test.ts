import { describe, expect, it } from 'vitest';
import { recentValues } from './recent-values.ts';

describe('recent values', () => {
  it('answers until the expiry, then forgets', () => {
    const recent = recentValues(1000);
    recent.remember('a', 'x', 100);
    recent.remember('b', 'y', null);
    expect(recent.get('a', 99)).toBe('x');
    expect(recent.get('a', 100)).toBeUndefined();
    expect(recent.get('b', Number.MAX_SAFE_INTEGER)).toBe('y');
    expect(recent.size).toBe(1);
  });

  it('keeps at most its bound in characters, dropping the oldest first; a value rewritten is young again', () => {
    const recent = recentValues(160);
    for (const key of ['a', 'b', 'c', 'd']) recent.remember(key, key.repeat(10), null);
    recent.remember('a', 'A'.repeat(10), null); // rewritten: now the youngest
    for (let i = 0; i < 14; i++) recent.remember(`k${i}`, '0123456789', null);
    // 18 values of 10 characters were asked to fit in 160: the two oldest (b, c) went.
    expect(recent.size).toBe(16);
    expect(['a', 'b', 'c', 'd'].map((key) => recent.get(key, 0))).toEqual(['AAAAAAAAAA', undefined, undefined, 'dddddddddd']);
    expect(recent.get('k13', 0)).toBe('0123456789');
  });

  it('does not keep a value larger than a sixteenth of its bound, and forgets what it held under that key', () => {
    const recent = recentValues(160);
    recent.remember('big', 'small', null);
    recent.remember('big', 'x'.repeat(11), null);
    expect(recent.get('big', 0)).toBeUndefined();
    expect(recent.size).toBe(0);
  });
});
