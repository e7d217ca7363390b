import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors.ts';
import { acceptedNamespace, accountNamespacesProblem, messageNamespace, namespacesFor } from './namespaces.ts';

const on = { solanaNetworks: ['mainnet' as const] };
const off = { solanaNetworks: [] };
const gate = { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] };

describe('account namespaces', () => {
  it('client metadata: a non-empty list of known namespaces, each once; a gated client must allow eip155', () => {
    expect(accountNamespacesProblem(['eip155', 'solana'], {})).toBeUndefined();
    expect(accountNamespacesProblem(['solana'], {})).toBeUndefined();
    expect(accountNamespacesProblem(['eip155'], { access_conditions: gate })).toBeUndefined();
    expect(accountNamespacesProblem('eip155', {})).toMatch(/^account_namespaces: must be a non-empty array/);
    expect(accountNamespacesProblem([], {})).toMatch(/^account_namespaces: must be a non-empty array/);
    expect(accountNamespacesProblem(['eip155', 7], {})).toMatch(/^account_namespaces\[1\]: 7 is not a namespace/);
    expect(accountNamespacesProblem(['Solana'], {})).toMatch(/^account_namespaces\[0\]: "Solana" is not a namespace/);
    expect(accountNamespacesProblem(['eip155', 'eip155'], {})).toMatch(/listed twice/);
    expect(accountNamespacesProblem(['solana'], { access_conditions: gate })).toMatch(/must allow eip155/);
    // At registration (offered given): only what the provider offers now.
    expect(accountNamespacesProblem(['solana'], {}, ['eip155'])).toMatch(/does not offer Solana accounts/);
    expect(accountNamespacesProblem(['eip155', 'solana'], {}, ['eip155', 'solana'])).toBeUndefined();
  });

  it('a sign-in takes what the provider offers, the client allows, and Ethereum only for a gated client', () => {
    expect(namespacesFor(off, {})).toEqual(['eip155']);
    expect(namespacesFor(on, {})).toEqual(['eip155', 'solana']);
    expect(namespacesFor(on, { account_namespaces: ['solana'] })).toEqual(['solana']);
    expect(namespacesFor(on, { account_namespaces: ['eip155'] })).toEqual(['eip155']);
    expect(namespacesFor(off, { account_namespaces: ['solana'] })).toEqual([]);
    expect(namespacesFor(on, { access_conditions: gate })).toEqual(['eip155']);
    // A malformed value (stored by hand) restricts nothing.
    expect(namespacesFor(on, { account_namespaces: 'solana' })).toEqual(['eip155', 'solana']);
  });

  it('the first line names the namespace; only the first line counts; another namespace is WRONG_NAMESPACE', () => {
    expect(messageNamespace('a.example wants you to sign in with your Solana account:\nabc')).toBe('solana');
    expect(messageNamespace('a.example wants you to sign in with your Ethereum account:\n0x…')).toBe('eip155');
    expect(messageNamespace('a.example wants you to sign in with your Solana account:')).toBe('solana');
    expect(messageNamespace('hello')).toBe('eip155');
    expect(
      messageNamespace('x wants you to sign in with your Ethereum account:\n\nx wants you to sign in with your Solana account:'),
    ).toBe('eip155');
    expect(() => messageNamespace('a.example wants you to sign in with your Bitcoin account:\nbc1…')).toThrow(
      expect.objectContaining({ code: 'WRONG_NAMESPACE', status: 400 }),
    );
  });

  it('a namespace the sign-in does not take is refused with why: the provider, the client, or its gate', () => {
    const solana = 'a wants you to sign in with your Solana account:\nx';
    const ethereum = 'a wants you to sign in with your Ethereum account:\nx';
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof HttpError ? { code: error.code, message: error.message } : error;
      }
      return undefined;
    };
    expect(acceptedNamespace(solana, ['eip155', 'solana'], on, {})).toBe('solana');
    expect(refusal(() => acceptedNamespace(solana, ['eip155'], off, {}))).toMatchObject({
      code: 'NAMESPACE_NOT_ALLOWED',
      message: expect.stringMatching(/does not sign in Solana accounts/),
    });
    expect(refusal(() => acceptedNamespace(ethereum, ['solana'], on, { account_namespaces: ['solana'] }))).toMatchObject({
      code: 'NAMESPACE_NOT_ALLOWED',
      message: expect.stringMatching(/takes Solana accounts only/),
    });
    expect(refusal(() => acceptedNamespace(solana, ['eip155'], on, { access_conditions: gate }))).toMatchObject({
      code: 'ACCESS_CONDITION_NOT_MET',
      message: expect.stringMatching(/native currency .* which a Solana account cannot have; sign in with an Ethereum account/),
    });
  });
});
