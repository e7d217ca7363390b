import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateTime } from './grammar.ts';

describe('RFC 3339 times to epoch milliseconds', () => {
  it.each([
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'], // a real leap second: the next second
    ['2016-12-31T23:59:59.99999999999999999Z', '2016-12-31T23:59:59.999Z'], // truncated, never rounded up
    ['0000-02-29T00:00:00Z', '0000-02-29T00:00:00.000Z'], // year 0 is a leap year (proleptic Gregorian)
    ['0099-12-31T23:59:59Z', '0099-12-31T23:59:59.000Z'], // not mapped onto 1999
    ['2024-02-29T12:00:00+01:00', '2024-02-29T11:00:00.000Z'],
    ['2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00.000Z'], // an offset across the year boundary
    ['1999-12-31T23:59:60-00:30', '2000-01-01T00:30:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseDateTime(text)).toBe(Date.parse(iso));
  });

  it('agrees with an independent reference (Date.parse of the ISO form) for random times, offsets and fractions', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 28 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          fraction: fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
          offset: fc.option(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), { nil: undefined }),
        }),
        ({ year, month, day, hour, minute, second, fraction, offset }) => {
          const base = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
          const zone =
            offset === undefined
              ? 'Z'
              : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
          const text = `${base}${fraction === undefined ? '' : `.${fraction}`}${zone}`;
          const millis = fraction === undefined ? '000' : `${fraction}00`.slice(0, 3);
          const reference = Date.parse(`${base}.${millis}Z`) - (offset ?? 0) * 60_000;
          expect(parseDateTime(text)).toBe(reference);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('consequences', () => {
  it('a Not Before at a year-end leap second is not accepted months early', async () => {
    const { validateSiweTimes } = await import('./validateSiweMessage.ts');
    const message = {
      issuedAt: '2016-01-01T00:00:00Z',
      notBefore: '2016-12-31T23:59:60Z',
    } as Parameters<typeof validateSiweTimes>[0];
    expect(() => validateSiweTimes(message, { time: Date.parse('2016-06-01T00:00:00Z') })).toThrow(
      expect.objectContaining({ type: 'NOT_YET_VALID_MESSAGE' }),
    );
  });

  it('IPvFuture hosts: the "v" is case-insensitive (RFC 3986)', async () => {
    const { AUTHORITY_RE } = await import('./grammar.ts');
    for (const host of ['[v1.x]', '[V1.x]', '[VF.a:b]']) expect(AUTHORITY_RE.test(host), host).toBe(true);
    expect(AUTHORITY_RE.test('[w1.x]')).toBe(false);
  });
});
