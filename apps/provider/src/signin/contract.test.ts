import { parseSiweMessage, validateSiweMessage, verifySiwe } from '@signet/siwe';
import { PORTABLE_STATEMENT_RE, STATEMENT_RE } from '@signet/siwe/caip122';
import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { expectationsFor, messageFromDetails, messageParameters } from './contract.ts';
import { type InteractionDetails, statementFor } from './details.ts';

const started = Date.parse('2026-11-22T10:00:00Z');
const details: InteractionDetails = {
  uid: 'abcd1234',
  nonce: '6162636431323334',
  domain: 'id.example.com',
  uri: 'https://id.example.com',
  statement: 'Sign in to Shop with id.example.com.',
  resources: ['https://shop.example/callback'],
  redirectHost: 'shop.example',
  chainIds: [1, 10],
  namespaces: ['eip155'],
  issuedAfter: new Date(started).toISOString(),
  expiresAt: new Date(started + 600_000).toISOString(),
  serverTime: new Date(started).toISOString(),
  client: { client_id: 'c' },
  scopes: ['openid'],
  prompt: 'login',
};

describe('the interaction contract, written once', () => {
  it('a message built from the details meets the expectations built from the same details', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const now = started + 5_000;
    const message = messageFromDetails(details, { address: account.address, now });
    const verified = await verifySiwe({
      message,
      signature: await account.signMessage({ message }),
      expect: expectationsFor(details, { now, clockSkewMs: 60_000 }),
    });
    expect(verified).toMatchObject({ address: account.address, chainId: 1, method: 'eoa' });
  });

  it('issuedAt is never before the sign-in began, even from a clock that runs behind', () => {
    const behind = messageParameters(details, { address: `0x${'11'.repeat(20)}`, now: started - 30_000 });
    expect(new Date(behind.issuedAt).getTime()).toBe(started);
    const ahead = messageParameters(details, { address: `0x${'11'.repeat(20)}`, now: started + 1000, chainId: 10 });
    expect(new Date(ahead.issuedAt).getTime()).toBe(started + 1000);
    expect(ahead.chainId).toBe(10);
  });

  it('the expectations refuse a message made for other details (another sign-in, another client)', () => {
    const address = `0x${'22'.repeat(20)}` as const;
    const other = { ...details, nonce: '6566676835363738', resources: ['https://evil.example/cb'] as [string] };
    const parsed = parseSiweMessage(messageFromDetails(other, { address, now: started + 1000 }));
    expect(() => validateSiweMessage(parsed, expectationsFor(details, { now: started + 1000, clockSkewMs: 0 }))).toThrow(
      expect.objectContaining({ type: expect.stringMatching(/NONCE_MISMATCH|RESOURCE_MISMATCH/) }),
    );
  });

  it('the statements the provider writes stay in EIP-4361’s published set (reserved / unreserved / space), whatever the client name, so verifiers that have not moved to the draft erratum read them', () => {
    // The characters the erratum makes valid, and the published grammar refuses.
    const widened = '"%<>{}|\\^`';
    for (const char of widened) {
      expect([STATEMENT_RE.test(char), PORTABLE_STATEMENT_RE.test(char)], char).toEqual([true, false]);
    }
    expect(statementFor({ domain: 'id.example.com' }, 'Say "hi" <b>{x}|y\\z^` 100%')).toBe(
      'Sign in to Say hi bxyz 100 with id.example.com.',
    );
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const template = fc.option(
      // SIWE_STATEMENT as the configuration accepts it: EIP-4361's published characters plus the placeholders.
      fc.string({ unit: fc.constantFrom(...'Sign in to with .:/?#[]@!$&()*+,;=-_~', '{client}', '{host}'), maxLength: 12 }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.string({ unit: fc.constantFrom(...widened, 'a', ' ', 'é', '\n'), maxLength: 40 }),
        ),
        template,
        fc.constantFrom('id.example.com', 'localhost:3000', '[::1]:8443'),
        (clientName, configured, domain) => {
          const statement = statementFor({ statement: configured, domain }, clientName);
          expect(statement).toMatch(PORTABLE_STATEMENT_RE);
          const message = messageFromDetails({ ...details, domain, statement }, { address, now: started });
          const parsed = parseSiweMessage(message);
          expect(parsed.statement ?? '').toBe(statement);
          if (parsed.statement !== undefined) expect(parsed.statement).toMatch(PORTABLE_STATEMENT_RE);
        },
      ),
      { numRuns: 500 },
    );
  });
});
