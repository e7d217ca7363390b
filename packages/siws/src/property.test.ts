/**
 * Properties, and a differential fuzz against a second implementation: the wallet-standard
 * reference, @solana/wallet-standard-util (`createSignInMessageText`, `parseSignInMessageText`,
 * `verifyMessageSignature`), plus Node's own Ed25519 for signatures.
 *
 * - Valid fields format to the same text in both, and both parse it back to those fields.
 * - The reference's parser is lenient (any text per line, multi-line statements, trailing
 *   newlines): whatever ours accepts, it accepts with the same fields; so whatever it rejects,
 *   ours rejects. Never the other way (README: where this package is stricter).
 * - Ours throws nothing but SiwsError, whatever the input.
 * - Signatures: ours, the reference's and Node's verification agree on valid and corrupted ones.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519';
import { base58, base64urlnopad } from '@scure/base';
import { isFieldLine } from '@signet/siwe/caip122';
import { createSignInMessageText, parseSignInMessageText, verifyMessageSignature } from '@solana/wallet-standard-util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { SiwsError } from './errors.ts';
import { SIWS_CHAIN_IDS } from './networks.ts';
import { parseSiwsMessage } from './parseSiwsMessage.ts';
import type { SiwsMessage } from './types.ts';
import { ed25519Verify, verifySiwsSignature } from './verifySiwsSignature.ts';

/** Every printable ASCII character (%x20-7E): what a statement may hold (the shared grammar, after the draft erratum to EIP-4361). */
const STATEMENT_CHARS = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PCHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";
const fromChars = (chars: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength });
const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Random valid messages: domain and address always, every other field maybe. */
const validFields: fc.Arbitrary<SiwsMessage> = fc
  .record(
    {
      domain: fc
        .tuple(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
        .map(([host, port]) => (port === undefined ? host : `${host}:${port}`)),
      address: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => base58.encode(bytes)),
      statement: fromChars(STATEMENT_CHARS, 1, 120).filter((s) => !isFieldLine(s)),
      uri: fc.webUrl({ withQueryParameters: true, withFragments: true }),
      version: fc.constant('1' as const),
      chainId: fc.constantFrom(...SIWS_CHAIN_IDS),
      nonce: fromChars(ALNUM, 8, 40),
      issuedAt: isoDate,
      expirationTime: isoDate,
      notBefore: isoDate,
      requestId: fromChars(PCHARS, 1, 40),
      resources: fc.array(fc.webUrl(), { maxLength: 4 }),
    },
    { requiredKeys: ['domain', 'address'] },
  )
  .map((fields) => ({ ...fields })); // a plain object (fast-check's records have no prototype)

const defined = (value: object) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

/** Ours either parses or throws SiwsError (nothing else); when ours parses, the reference gives the same fields. */
function parseBoth(text: string): SiwsMessage | undefined {
  let ours: SiwsMessage | undefined;
  try {
    ours = parseSiwsMessage(text);
  } catch (error) {
    if (!(error instanceof SiwsError)) throw error;
    return undefined;
  }
  const theirs = parseSignInMessageText(text);
  expect(theirs, `the reference rejects a text ours accepts:\n${text}`).not.toBeNull();
  expect(defined(theirs as object)).toStrictEqual(ours);
  return ours;
}

const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    char: fc.constantFrom('\n', ' ', ':', '-', 'A', '\r', '1', 'é'),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('dropLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeatLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('appendNewlines' as const), count: fc.integer({ min: 1, max: 3 }) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(text: string, mutations: readonly Mutation[]): string {
  let out = text;
  for (const m of mutations) {
    const lines = out.split('\n');
    const pick = (n: number) => n % lines.length;
    if (m.kind === 'swapLines') {
      const [a, b] = [pick(m.a), pick(m.b)];
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      out = lines.join('\n');
    } else if (m.kind === 'dropLine') {
      lines.splice(pick(m.at), 1);
      out = lines.join('\n');
    } else if (m.kind === 'repeatLine') {
      const at = pick(m.at);
      lines.splice(at, 0, lines[at] as string);
      out = lines.join('\n');
    } else if (m.kind === 'appendNewlines') {
      out += '\n'.repeat(m.count);
    } else {
      const at = m.at % (out.length + 1);
      out = m.kind === 'insert' ? out.slice(0, at) + m.char + out.slice(at) : out.slice(0, at) + out.slice(at + 1);
    }
  }
  return out;
}

describe('properties and the differential fuzz against @solana/wallet-standard-util', () => {
  it('valid fields: the same text from both formatters; both parsers give back the fields', () => {
    fc.assert(
      fc.property(validFields, (fields) => {
        const text = createSiwsMessage(fields);
        expect(text).toBe(createSignInMessageText(fields));
        expect(parseSiwsMessage(text)).toStrictEqual(fields);
        expect(defined(parseSignInMessageText(text) as object)).toStrictEqual(fields);
        expect(createSiwsMessage(parseSiwsMessage(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('mutated messages: what ours accepts, the reference accepts identically (so what it rejects, ours rejects)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(validFields, fc.array(mutation, { minLength: 1, maxLength: 3 }), (fields, mutations) => {
        const text = mutate(createSiwsMessage(fields), mutations);
        const parsed = parseBoth(text);
        if (parsed) {
          accepted += 1;
          expect(createSiwsMessage(parsed)).toBe(text);
        }
      }),
      { numRuns: 3000 },
    );
    // The fuzz must reach both sides: some mutations keep a valid message (a dropped optional line, say).
    expect(accepted).toBeGreaterThan(100);
  });

  it('random lines under a valid preamble and address: same property, and only SiwsError', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', 'Resources:', '- https://a.example', 'URI: https://a.example', 'Nonce: abcdefgh', 'Version: 1'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        parseBoth(
          ['a.example wants you to sign in with your Solana account:', '11111111111111111111111111111111', ...lines].join('\n'),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('random strings never throw anything but SiwsError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        parseBoth(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('properties and the differential fuzz against @solana/wallet-standard-util: signatures', () => {
  it('signatures: ours, the reference and Node (OpenSSL) agree, on valid and on corrupted signatures and messages', () => {
    const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        validFields,
        fc.option(
          fc.record({ where: fc.constantFrom('signature', 'message'), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
          {
            nil: undefined,
          },
        ),
        (seed, fields, corruption) => {
          const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
          const publicKey = base64urlnopad.decode(createPublicKey(key).export({ format: 'jwk' }).x as string);
          const text = createSiwsMessage({ ...fields, address: base58.encode(publicKey) });
          const signed = encoder.encode(text);
          const signature = new Uint8Array(sign(null, signed, key));
          let checkedText = text;
          if (corruption?.where === 'signature') {
            signature[corruption.at % 64] = (signature[corruption.at % 64] as number) ^ (1 << corruption.bit);
          } else if (corruption) {
            // Another text that still parses: the domain's first letter changed.
            checkedText = text.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
          }
          const node = verify(null, encoder.encode(checkedText), createPublicKey(key), signature);
          const reference = verifyMessageSignature({
            message: encoder.encode(checkedText),
            signedMessage: encoder.encode(checkedText),
            signature,
            publicKey,
          });
          let ours: boolean;
          try {
            ours = verifySiwsSignature({ message: checkedText, signature }).address === base58.encode(publicKey);
          } catch (error) {
            if (!(error instanceof SiwsError)) throw error;
            ours = false;
          }
          expect({ ours, reference }).toEqual({ ours: node, reference: node });
          expect(node).toBe(corruption === undefined);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ed25519Verify (strict key check + OpenSSL) answers as @noble/curves strict verify, adversarial keys included', () => {
    const torsion = ED25519_TORSION_SUBGROUP.map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));
    const TRIVIAL = new Uint8Array(64);
    TRIVIAL[0] = 1;
    const keys = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((seed) => ({ seed, publicKey: ed25519.getPublicKey(seed) })),
      fc.constantFrom(...torsion).map((publicKey) => ({ seed: undefined, publicKey })),
      // Non-canonical encodings: the sign bit flipped (x = 0 for two of the torsion points), y + p for small y.
      fc.constantFrom(...torsion).map((key) => ({ seed: undefined, publicKey: key.map((b, i) => (i === 31 ? b ^ 0x80 : b)) })),
      fc.integer({ min: 0, max: 18 }).map((y) => {
        const publicKey = new Uint8Array(32).fill(0xff);
        publicKey[0] = 0xed + y;
        publicKey[31] = 0x7f;
        return { seed: undefined, publicKey };
      }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((publicKey) => ({ seed: undefined, publicKey })),
    );
    fc.assert(
      fc.property(
        keys,
        fc.uint8Array({ maxLength: 200 }),
        fc.oneof(
          fc.constant('signed' as const),
          fc.constant('trivial' as const),
          fc.uint8Array({ minLength: 64, maxLength: 64 }),
          fc.record({ flip: fc.nat(511) }),
        ),
        ({ seed, publicKey }, message, how) => {
          let signature: Uint8Array;
          if (how instanceof Uint8Array) signature = how;
          else if (how === 'trivial' || seed === undefined)
            signature = TRIVIAL; // R = the neutral point, s = 0
          else signature = ed25519.sign(message, seed);
          if (typeof how === 'object' && !(how instanceof Uint8Array)) {
            signature[how.flip >> 3] = (signature[how.flip >> 3] as number) ^ (1 << (how.flip & 7));
          }
          expect(ed25519Verify(signature, message, publicKey)).toBe(
            ed25519.verify(signature, message, publicKey, { zip215: false }),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
