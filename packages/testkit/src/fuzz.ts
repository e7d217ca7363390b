/** fast-check arbitraries for the hostile-input tests: texts a client could send, and near-misses of valid ones. */
import fc from 'fast-check';

/** Printable ASCII (what fetch lets through in a header value). */
export const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

/** Any text: printable, any Unicode, or JSON of any shape. */
export const anyText = fc.oneof(printable, fc.string({ maxLength: 300 }), fc.json({ maxDepth: 3 }));

/** A valid string with one character replaced, removed or inserted. */
export const mutated = (valid: string) =>
  fc
    .tuple(
      fc.nat({ max: Math.max(0, valid.length - 1) }),
      fc.constantFrom('replace', 'delete', 'insert'),
      fc.string({ minLength: 1, maxLength: 1 }),
    )
    .map(([at, how, char]) =>
      how === 'delete'
        ? valid.slice(0, at) + valid.slice(at + 1)
        : how === 'insert'
          ? valid.slice(0, at) + char + valid.slice(at)
          : valid.slice(0, at) + char + valid.slice(at + 1),
    );

/** Content types a hostile client might send, right and wrong. */
export const contentType = fc.constantFrom(
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/jwt',
  '',
);
