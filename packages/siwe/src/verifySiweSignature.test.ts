import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestchain, type Testchain } from '@signet/testchain';
import { createPublicClient, custom, http, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainRegistry } from './createChainRegistry.ts';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError, type SiweErrorType } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';
import { verifySiwe } from './verifySiwe.ts';
import { isEoaSignatureOf, verifyContractWalletSignature, verifySiweSignature } from './verifySiweSignature.ts';

// The spruceid/siwe library's own vectors, copied into this package (test/vectors/spruceid-siwe, with their licence).
const vectors = join(import.meta.dirname, '..', 'test', 'vectors', 'spruceid-siwe');
type Vector = Record<string, unknown> & {
  signature: string;
  time?: string;
  domainBinding?: string;
  matchNonce?: string;
};
const load = (file: string): Record<string, Vector> => JSON.parse(readFileSync(join(vectors, file), 'utf8'));

async function rejection(promise: Promise<unknown>): Promise<SiweError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SiweError);
    return error as SiweError;
  }
  throw new Error('expected a rejection');
}

const messageFor = (address: `0x${string}`, chainId: number, nonce = 'n0nce12345678') =>
  createSiweMessage({
    domain: 'signet.test',
    address,
    uri: 'https://signet.test',
    chainId,
    nonce,
    issuedAt: '2025-01-01T00:00:00Z',
  });

describe('spruceid/siwe verification vectors (offline)', () => {
  const split = ({ signature, time, domainBinding, matchNonce, ...fields }: Vector) => ({
    text: createSiweMessage(fields as never),
    signature,
    expect: {
      time: time ? Date.parse(time) : Date.parse('2050-01-01T00:00:00Z'),
      domain: domainBinding,
      nonce: matchNonce,
    },
  });

  // Where our stricter rules disagree with the vectors, and why:
  //  - "expired message" (positive): it is checked at a time *before* its issuedAt; we refuse a
  //    message issued in the future (ISSUED_IN_FUTURE) whatever its expiry says.
  const disagreements: Record<string, SiweErrorType> = { 'expired message': 'ISSUED_IN_FUTURE' };

  for (const [name, vector] of Object.entries(load('verification_positive.json'))) {
    it(`positive: ${name}`, async () => {
      const { text, signature, expect: expectations } = split(vector);
      if (disagreements[name]) {
        expect((await rejection(verifySiwe({ message: text, signature, expect: expectations }))).type).toBe(disagreements[name]);
        // The signature itself is good: only the time rule differs.
        await expect(verifySiweSignature({ message: text, signature })).resolves.toMatchObject({ method: 'eoa' });
        return;
      }
      const result = await verifySiwe({ message: text, signature, expect: expectations });
      expect(result).toMatchObject({ address: vector.address, method: 'eoa' });
    });
  }

  const negativeTypes: Record<string, SiweErrorType> = {
    'expired message': 'EXPIRED_MESSAGE',
    'domain binding': 'DOMAIN_MISMATCH',
    'custom time': 'EXPIRED_MESSAGE',
    'custom nonce': 'NONCE_MISMATCH',
    'malformed signature': 'INVALID_SIGNATURE',
    'wrong signature': 'INVALID_SIGNATURE',
    'not yet valid': 'NOT_YET_VALID_MESSAGE',
    'invalid issuedAt': 'INVALID_TIME_FORMAT',
    'invalid notBefore': 'INVALID_TIME_FORMAT',
    'invalid expirationTime': 'INVALID_TIME_FORMAT',
  };
  for (const [name, vector] of Object.entries(load('verification_negative.json'))) {
    it(`negative: ${name} → ${negativeTypes[name]}`, async () => {
      const type = await (async () => {
        try {
          const { text, signature, expect: expectations } = split(vector);
          await verifySiwe({ message: text, signature, expect: { ...expectations, time: expectations.time } });
        } catch (error) {
          expect(error).toBeInstanceOf(SiweError);
          return (error as SiweError).type;
        }
        return 'accepted';
      })();
      expect(type).toBe(negativeTypes[name]);
    });
  }
});

describe('EOA signatures need no network', () => {
  it('verifies with no client configured at all', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(account.address, 1);
    const signature = await account.signMessage({ message });
    await expect(verifySiweSignature({ message, signature })).resolves.toEqual(
      expect.objectContaining({ address: account.address, chainId: 1, method: 'eoa' }),
    );
  });

  it('rejects another key offline with INVALID_SIGNATURE', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(account.address, 1);
    const error = await rejection(verifySiweSignature({ message, signature: await other.signMessage({ message }) }));
    expect(error.type).toBe('INVALID_SIGNATURE');
  });

  it.each([
    ['not hex', 'hello'],
    ['odd length', '0x123'],
    ['empty', '0x'],
    ['bad recovery byte', `0x${'11'.repeat(64)}05`],
    ['r and s zero', `0x${'00'.repeat(64)}1b`],
  ])('rejects a malformed signature (%s) with INVALID_SIGNATURE', async (_name, signature) => {
    const message = messageFor(privateKeyToAccount(generatePrivateKey()).address, 1);
    expect((await rejection(verifySiweSignature({ message, signature }))).type).toBe('INVALID_SIGNATURE');
  });
});

describe('the two steps for verifiers that check times in between', () => {
  it("isEoaSignatureOf: true for the address's own EOA signature, false for another signer or a wrapper, throws for non-hex", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const text = messageFor(account.address, 1);
    const parsed = parseSiweMessage(text);
    expect(isEoaSignatureOf(parsed, text, await account.signMessage({ message: text }))).toBe(true);
    const other = privateKeyToAccount(generatePrivateKey());
    expect(isEoaSignatureOf(parsed, text, await other.signMessage({ message: text }))).toBe(false);
    expect(isEoaSignatureOf(parsed, text, `0x${'ab'.repeat(100)}`)).toBe(false);
    expect(() => isEoaSignatureOf(parsed, text, 'not hex')).toThrow(expect.objectContaining({ type: 'INVALID_SIGNATURE' }));
  });

  it('verifyContractWalletSignature without an RPC for the chain: INVALID_SIGNATURE that says so', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const text = messageFor(account.address, 10);
    const error = await rejection(
      verifyContractWalletSignature(parseSiweMessage(text), text, `0x${'ab'.repeat(100)}`, undefined),
    );
    expect(error.type).toBe('INVALID_SIGNATURE');
    expect(error.message).toMatch(/no RPC is configured for chain 10/);
  });
});

// Two local chains, shared by the two "contract wallets on a real local chain" describes below.
let chainA: Testchain;
let chainB: Testchain;
let registry: ReturnType<typeof createChainRegistry>;
const owner = privateKeyToAccount(generatePrivateKey());
let wallet: `0x${string}`;

beforeAll(async () => {
  [chainA, chainB] = await Promise.all([
    startTestchain({ chainId: 31337, ens: false }),
    startTestchain({ chainId: 31338, ens: false }),
  ]);
  registry = createChainRegistry({ 31337: chainA.url, 31338: chainB.url }, { timeoutMs: 2000, retryCount: 0 });
  wallet = await chainA.deployWallet(owner.address);
});
afterAll(async () => {
  await Promise.all([chainA?.stop(), chainB?.stop()]);
});

describe('contract wallets on a real local chain', () => {
  it('EOA verification makes no RPC request even when a client is configured', async () => {
    const before = chainA.node.requestCount;
    const message = messageFor(owner.address, 31337);
    await verifySiweSignature({ message, signature: await owner.signMessage({ message }), client: registry });
    expect(chainA.node.requestCount).toBe(before);
  });

  it('contract-wallet eth_calls carry an explicit gas cap (a hostile wallet cannot make the node burn its default)', async () => {
    const { CONTRACT_WALLET_GAS_CAP } = await import('./contractWallets.ts');
    const calls: unknown[] = [];
    // The real node behind a transport that records what is sent to it.
    const recording = createPublicClient({
      transport: custom({
        async request({ method, params }) {
          if (method === 'eth_call') calls.push(params);
          const response = await fetch(chainA.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          });
          const body = (await response.json()) as { result?: unknown; error?: { message: string } };
          if (body.error) throw new Error(body.error.message);
          return body.result;
        },
      }),
    }) as PublicClient;
    const message = messageFor(wallet, 31337);
    const result = await verifySiweSignature({ message, signature: await owner.signMessage({ message }), client: recording });
    expect(result.method).toBe('eip1271');
    expect(calls).toHaveLength(1);
    expect((calls[0] as [{ gas?: string }])[0].gas).toBe(`0x${CONTRACT_WALLET_GAS_CAP.toString(16)}`);
  });

  it('EIP-1271: accepts the owner signature for a deployed wallet', async () => {
    const message = messageFor(wallet, 31337);
    const result = await verifySiweSignature({ message, signature: await owner.signMessage({ message }), client: registry });
    expect(result).toMatchObject({ address: wallet, chainId: 31337, method: 'eip1271' });
  });

  it('EIP-1271: refuses a signature by someone other than the owner', async () => {
    const message = messageFor(wallet, 31337);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const error = await rejection(
      verifySiweSignature({ message, signature: await stranger.signMessage({ message }), client: registry }),
    );
    expect(error.type).toBe('INVALID_SIGNATURE');
  });

  it('EIP-1271: the same signature presented with another chain ID is refused', async () => {
    const message = messageFor(wallet, 31337);
    const signature = await owner.signMessage({ message });
    const moved = message.replace('Chain ID: 31337', 'Chain ID: 31338');
    const error = await rejection(verifySiweSignature({ message: moved, signature, client: registry }));
    expect(error.type).toBe('INVALID_SIGNATURE');
  });

  it("EIP-1271: checks on the message's chain only (no fallback to a chain where the wallet exists)", async () => {
    const message = messageFor(wallet, 31338); // the wallet only exists on 31337
    const signature = await owner.signMessage({ message });
    const beforeA = chainA.node.requestCount;
    const error = await rejection(verifySiweSignature({ message, signature, client: registry }));
    expect(error.type).toBe('INVALID_SIGNATURE');
    expect(chainA.node.requestCount).toBe(beforeA);
    // A single client for chain A must not be used for a chain-B message either.
    const onlyA = createPublicClient({ chain: chainA.chain, transport: http(chainA.url) }) as PublicClient;
    expect((await rejection(verifySiweSignature({ message, signature, client: onlyA }))).type).toBe('INVALID_SIGNATURE');
    expect(chainA.node.requestCount).toBe(beforeA);
  });

  it('EIP-1271: a client without a chain is asked its chain id first', async () => {
    const bare = createPublicClient({ transport: http(chainA.url) }) as PublicClient;
    const message = messageFor(wallet, 31337);
    const result = await verifySiweSignature({ message, signature: await owner.signMessage({ message }), client: bare });
    expect(result.method).toBe('eip1271');
    const other = messageFor(wallet, 31338);
    const error = await rejection(
      verifySiweSignature({ message: other, signature: await owner.signMessage({ message: other }), client: bare }),
    );
    expect(error.type).toBe('INVALID_SIGNATURE');
  });
});

describe('contract wallets on a real local chain: EIP-6492 and outages', () => {
  it('EIP-6492: accepts a counterfactual wallet before it is deployed, and deploys nothing', async () => {
    const counterfactual = await chainA.counterfactualWallet(owner.address, 42n);
    expect(await chainA.publicClient.getCode({ address: counterfactual.address })).toBeUndefined();
    const message = messageFor(counterfactual.address, 31337);
    const signature = chainA.wrap6492(await owner.signMessage({ message }), counterfactual);
    const result = await verifySiweSignature({ message, signature, client: registry });
    expect(result).toMatchObject({ address: counterfactual.address, method: 'eip6492' });
    expect(await chainA.publicClient.getCode({ address: counterfactual.address })).toBeUndefined();
  });

  it("EIP-6492: refuses a wrapped signature that is not the owner's", async () => {
    const counterfactual = await chainA.counterfactualWallet(owner.address, 43n);
    const message = messageFor(counterfactual.address, 31337);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const signature = chainA.wrap6492(await stranger.signMessage({ message }), counterfactual);
    expect((await rejection(verifySiweSignature({ message, signature, client: registry }))).type).toBe('INVALID_SIGNATURE');
  });

  it('EIP-6492 with no RPC for the chain: INVALID_SIGNATURE that says so', async () => {
    const counterfactual = await chainA.counterfactualWallet(owner.address, 44n);
    const message = messageFor(counterfactual.address, 31337);
    const signature = chainA.wrap6492(await owner.signMessage({ message }), counterfactual);
    const error = await rejection(verifySiweSignature({ message, signature }));
    expect(error.type).toBe('INVALID_SIGNATURE');
    expect(error.message).toMatch(/no RPC is configured for chain 31337/);
  });

  it('RPC down: RPC_UNAVAILABLE (not INVALID_SIGNATURE), and works again once the node is back', async () => {
    const message = messageFor(wallet, 31337);
    const signature = await owner.signMessage({ message });
    await chainA.node.pause();
    try {
      const error = await rejection(verifySiweSignature({ message, signature, client: registry }));
      expect(error.type).toBe('RPC_UNAVAILABLE');
      // EOAs are unaffected by the outage.
      const eoaMessage = messageFor(owner.address, 31337);
      const eoa = await verifySiweSignature({
        message: eoaMessage,
        signature: await owner.signMessage({ message: eoaMessage }),
        client: registry,
      });
      expect(eoa.method).toBe('eoa');
    } finally {
      await chainA.node.resume();
    }
    await expect(verifySiweSignature({ message, signature, client: registry })).resolves.toMatchObject({ method: 'eip1271' });
  });
});
