import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors.ts';
import {
  acceptedNamespace,
  accountKinds,
  accountNamespacesProblem,
  messageNamespace,
  namespacesFor,
  offeredNamespaces,
} from './namespaces.ts';

const on = { solanaNetworks: ['mainnet' as const] };
const off = { solanaNetworks: [] };
const bitcoin = { solanaNetworks: [], bitcoinNetworks: ['mainnet' as const] };
const all = { solanaNetworks: ['mainnet' as const], bitcoinNetworks: ['signet' as const] };
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
    // Bitcoin is `bip122` (its CAIP-2 namespace), offered by BITCOIN_NETWORKS.
    expect(accountNamespacesProblem(['bip122'], {})).toBeUndefined();
    expect(accountNamespacesProblem(['bitcoin'], {})).toMatch(/^account_namespaces\[0\]: "bitcoin" is not a namespace/);
    expect(accountNamespacesProblem(['bip122'], { access_conditions: gate })).toMatch(/must allow eip155/);
    expect(accountNamespacesProblem(['eip155', 'bip122'], {}, offeredNamespaces(on))).toMatch(
      /^account_namespaces\[1\]: this provider does not offer Bitcoin accounts \(BITCOIN_NETWORKS is empty\)/,
    );
    expect(accountNamespacesProblem(['solana'], {}, offeredNamespaces(bitcoin))).toMatch(/\(SOLANA_NETWORKS is empty\)/);
    expect(accountNamespacesProblem(['bip122', 'solana'], {}, offeredNamespaces(all))).toBeUndefined();
  });

  it('offered: Ethereum always, Solana and Bitcoin when their settings name a network; named for people', () => {
    expect(offeredNamespaces(off)).toEqual(['eip155']);
    expect(offeredNamespaces(bitcoin)).toEqual(['eip155', 'bip122']);
    expect(offeredNamespaces(all)).toEqual(['eip155', 'solana', 'bip122']);
    expect(offeredNamespaces({ solanaNetworks: [], bitcoinNetworks: [] })).toEqual(['eip155']);
    expect(accountKinds(['bip122'])).toBe('Bitcoin');
    expect(accountKinds(['eip155', 'solana'])).toBe('Ethereum or Solana');
    expect(accountKinds(['eip155', 'solana', 'bip122'])).toBe('Ethereum, Solana or Bitcoin');
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
    expect(namespacesFor(all, {})).toEqual(['eip155', 'solana', 'bip122']);
    expect(namespacesFor(all, { account_namespaces: ['bip122'] })).toEqual(['bip122']);
    expect(namespacesFor(on, { account_namespaces: ['bip122'] })).toEqual([]);
    expect(namespacesFor(all, { access_conditions: gate })).toEqual(['eip155']);
  });

  it('the first line names the namespace; only the first line counts; another namespace is WRONG_NAMESPACE', () => {
    expect(messageNamespace('a.example wants you to sign in with your Solana account:\nabc')).toBe('solana');
    expect(messageNamespace('a.example wants you to sign in with your Ethereum account:\n0x…')).toBe('eip155');
    expect(messageNamespace('a.example wants you to sign in with your Solana account:')).toBe('solana');
    expect(messageNamespace('hello')).toBe('eip155');
    expect(
      messageNamespace('x wants you to sign in with your Ethereum account:\n\nx wants you to sign in with your Solana account:'),
    ).toBe('eip155');
    expect(messageNamespace('a.example wants you to sign in with your Bitcoin account:\nbc1…')).toBe('bip122');
    expect(() => messageNamespace('a.example wants you to sign in with your Cosmos account:\ncosmos1…')).toThrow(
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
    const btc = 'a wants you to sign in with your Bitcoin account:\nbc1q';
    expect(acceptedNamespace(btc, ['eip155', 'bip122'], bitcoin, {})).toBe('bip122');
    expect(refusal(() => acceptedNamespace(btc, ['eip155', 'solana'], on, {}))).toMatchObject({
      code: 'NAMESPACE_NOT_ALLOWED',
      message: expect.stringMatching(/does not sign in Bitcoin accounts \(it takes Ethereum or Solana accounts\)/),
    });
    expect(refusal(() => acceptedNamespace(btc, ['eip155'], all, { access_conditions: gate }))).toMatchObject({
      code: 'ACCESS_CONDITION_NOT_MET',
      message: expect.stringMatching(/which a Bitcoin account cannot have; sign in with an Ethereum account/),
    });
  });
});
