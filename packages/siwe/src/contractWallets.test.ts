/**
 * Real third-party wallets through the library, on a real local chain: Safe 1.4.1 (Safe's own
 * published artifacts), OpenZeppelin Contracts 5.x accounts (ERC-7739, EIP-7702), ERC-8010, a
 * deployed ERC-6492 verifier, and hostile contracts (gas burners, answers of odd shapes compared
 * with OpenZeppelin's SignatureChecker on the same chain).
 */
import { ERC1271_ANSWER_SHAPES, type RealWallets, realWallets, startTestchain, type Testchain } from '@signet/testchain';
import { createPublicClient, defineChain, hashMessage, http, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { abstract, abstractTestnet, zksync, zksyncSepoliaTestnet } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETH_CALL_GAS_CAP } from './contractWallets.ts';
import { type ChainRegistry, createChainRegistry } from './createChainRegistry.ts';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError } from './errors.ts';
import { KNOWN_CHAINS } from './knownChains.ts';
import { verifySiweSignature } from './verifySiweSignature.ts';

const key = () => privateKeyToAccount(generatePrivateKey());

const messageFor = (address: `0x${string}`, chainId: number) =>
  createSiweMessage({
    domain: 'signet.test',
    address,
    uri: 'https://signet.test',
    chainId,
    nonce: 'w4llets123',
    issuedAt: '2025-01-01T00:00:00Z',
  });

async function refusal(promise: Promise<unknown>): Promise<SiweError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SiweError);
    return error as SiweError;
  }
  throw new Error('expected a refusal');
}

/** The eth_calls the node received while `run` ran. */
async function ethCallsDuring(chain: Testchain, run: () => Promise<unknown>) {
  const before = chain.node.requestCount;
  await run().catch(() => undefined);
  return chain.node
    .requestsSince(before)
    .filter((r) => r.method === 'eth_call')
    .map((r) => r.params[0] as { to?: string; gas?: string; data: string });
}

// One chain for the describes below (the real wallets through @signet/siwe).
let chain: Testchain;
let wallets: RealWallets;
let registry: ChainRegistry;
const [a, b, c] = [key(), key(), key()];

beforeAll(async () => {
  chain = await startTestchain({ chainId: 31337, ens: false });
  wallets = await realWallets(chain);
  registry = createChainRegistry({ 31337: chain.url }, { timeoutMs: 5000, retryCount: 0 });
});
afterAll(() => chain?.stop());

const verify = (address: `0x${string}`, signature: string, client: ChainRegistry | PublicClient = registry) =>
  verifySiweSignature({ message: messageFor(address, 31337), signature, client });

describe('real wallets through @signet/siwe on a local chain: any signature length (item 1)', () => {
  it('a Safe that signed on chain (SignMessageLib) is accepted with the empty signature 0x, asked directly', async () => {
    const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 101n);
    await wallets.safe.signOnChain(safe, messageFor(safe, 31337), [a, b]);
    const calls = await ethCallsDuring(chain, async () => {
      await expect(verify(safe, '0x')).resolves.toMatchObject({ address: safe, method: 'eip1271' });
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.to?.toLowerCase()).toBe(safe.toLowerCase());
    // Another text was not signed on chain: refused, in words.
    const other = await refusal(
      verifySiweSignature({
        message: messageFor(safe, 31337).replace('w4llets123', 'w4llets124'),
        signature: '0x',
        client: registry,
      }),
    );
    expect(other.type).toBe('INVALID_SIGNATURE');
    expect(other.message).toMatch(/refused the signature \(it reverted\)/);
  });

  it('signatures of 1 to 31 bytes reach an ERC-1271 wallet and are accepted when it says so', async () => {
    const owner = key();
    const wallet = await wallets.approvedSignatureWallet(owner);
    for (const signature of ['0x01', `0x${'ab'.repeat(31)}`, `0x${'cd'.repeat(32)}`] as const) {
      await wallet.approve(messageFor(wallet.address, 31337), signature);
      await expect(verify(wallet.address, signature)).resolves.toMatchObject({ method: 'eip1271' });
    }
    const wrong = await refusal(verify(wallet.address, '0x02'));
    expect(wrong.message).toMatch(/answered that it is not valid/);
  });

  it('an empty or short signature from a plain account: INVALID_SIGNATURE that says what happened', async () => {
    const plain = key();
    const empty = await refusal(verify(plain.address, '0x'));
    expect(empty.type).toBe('INVALID_SIGNATURE');
    expect(empty.message).toBe(
      `the signature is empty, which only a contract wallet can accept, and ${plain.address} is not one on chain 31337 (no ERC-1271 answer)`,
    );
    const short = await refusal(verify(plain.address, '0x1234'));
    expect(short.message).toMatch(/is not a contract wallet on chain 31337/);
    const offline = await refusal(verifySiweSignature({ message: messageFor(plain.address, 31337), signature: '0x' }));
    expect(offline.message).toBe(
      'the signature is empty, which only a contract wallet can accept, and no RPC is configured for chain 31337 to check a contract wallet',
    );
    expect((await refusal(verify(plain.address, 'hello'))).message).toBe(
      'signature is not hex bytes (0x followed by an even number of hex digits)',
    );
  });
});

describe('real wallets through @signet/siwe on a local chain: Safe 1.4.1 and OpenZeppelin 5.x accounts', () => {
  it('Safe 2-of-3: two owners sign (EIP-712 SafeMessage), one is not enough', async () => {
    const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 102n);
    const message = messageFor(safe, 31337);
    await expect(verify(safe, await wallets.safe.sign(safe, message, [c, a]))).resolves.toMatchObject({ method: 'eip1271' });
    expect((await refusal(verify(safe, await wallets.safe.sign(safe, message, [a])))).type).toBe('INVALID_SIGNATURE');
  });

  it('a Safe owned by a Safe (nested contract signature)', async () => {
    const inner = await wallets.safe.deploy([a.address], 1, 103n);
    const outer = await wallets.safe.deploy([inner, b.address], 2, 104n);
    const message = messageFor(outer, 31337);
    await expect(verify(outer, await wallets.safe.signNested(outer, inner, message, [a], [b]))).resolves.toMatchObject({
      method: 'eip1271',
    });
    expect((await refusal(verify(outer, await wallets.safe.signNested(outer, inner, message, [c], [b])))).type).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('a counterfactual Safe through EIP-6492 (deployed in the call, not on chain after)', async () => {
    const cf = await wallets.safe.counterfactual([a.address, b.address, c.address], 2, 105n);
    const inner = await wallets.safe.sign(cf.address, messageFor(cf.address, 31337), [a, b]);
    await expect(verify(cf.address, chain.wrap6492(inner, cf))).resolves.toMatchObject({ method: 'eip6492' });
    expect(await chain.publicClient.getCode({ address: cf.address })).toBeUndefined();
  });

  it('an OpenZeppelin account with ERC-7739: the nested PersonalSign signature, not the raw one', async () => {
    const account = await wallets.openZeppelin.deploy(a.address);
    const message = messageFor(account, 31337);
    await expect(verify(account, await wallets.openZeppelin.sign(account, message, a))).resolves.toMatchObject({
      method: 'eip1271',
    });
    expect((await refusal(verify(account, await a.signMessage({ message })))).type).toBe('INVALID_SIGNATURE');
  });
});

describe('real wallets through @signet/siwe on a local chain: EIP-7702 and ERC-8010 (item 2)', () => {
  it('an EOA delegated on chain answers for itself (ERC-1271 on its own address)', async () => {
    const eoa = key();
    await wallets.eip7702.delegate(eoa);
    await expect(verify(eoa.address, await wallets.eip7702.sign(eoa, messageFor(eoa.address, 31337)))).resolves.toMatchObject({
      method: 'eip1271',
    });
  });

  it('ERC-8010: the authorization is not on chain yet; checked with it, and nothing is left on chain', async () => {
    const eoa = key();
    const signature = await wallets.eip7702.signWithAuthorization(eoa, messageFor(eoa.address, 31337));
    const calls = await ethCallsDuring(chain, async () => {
      await expect(verify(eoa.address, signature)).resolves.toMatchObject({ method: 'erc8010' });
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.gas).toBe(`0x${ETH_CALL_GAS_CAP.toString(16)}`);
    expect(await chain.publicClient.getCode({ address: eoa.address })).toBeUndefined();
    // Once the delegation is on chain, the same signature still holds (ERC-1271 on the account).
    await wallets.eip7702.delegate(eoa);
    await expect(verify(eoa.address, signature)).resolves.toMatchObject({ method: 'erc8010' });
  });

  it('ERC-8010 refusals: an authorization by another key, or a wrong inner signature', async () => {
    const eoa = key();
    const stranger = key();
    const borrowed = await wallets.eip7702.signWithAuthorization(stranger, messageFor(eoa.address, 31337));
    const error = await refusal(verify(eoa.address, borrowed));
    expect(error.type).toBe('INVALID_SIGNATURE');
    expect(error.message).toBe(
      `the EIP-7702 authorization in the signature was signed by ${stranger.address}, not by ${eoa.address}`,
    );
    const otherText = await wallets.eip7702.signWithAuthorization(eoa, messageFor(eoa.address, 1));
    expect((await refusal(verify(eoa.address, otherText))).message).toMatch(
      /checked with its EIP-7702 authorization on chain 31337/,
    );
  });
});

describe('real wallets through @signet/siwe on a local chain: gas cap and hostile wallets (item 4)', () => {
  it('every eth_call carries the cap; a wallet that burns all its gas is INVALID_SIGNATURE, saying so', async () => {
    expect(ETH_CALL_GAS_CAP).toBe(2_000_000n);
    const burner = await wallets.gasBurningWallet();
    let error: SiweError | undefined;
    const calls = await ethCallsDuring(chain, async () => {
      error = await refusal(verify(burner, '0x1234'));
    });
    expect(calls.map((call) => call.gas)).toEqual([`0x${ETH_CALL_GAS_CAP.toString(16)}`]);
    expect(error?.type).toBe('INVALID_SIGNATURE');
    expect(error?.message).toBe(
      `the contract wallet ${burner} ran out of gas (the cap is 2000000 per check) on chain 31337: not accepted`,
    );
    // Wrapped for EIP-6492, the universal validator's call is capped too, and the answer is the same kind.
    const cf = await chain.counterfactualWallet(a.address, 106n);
    const wrapped = chain.wrap6492(`0x${'11'.repeat(65)}`, cf);
    const capped = await ethCallsDuring(chain, () => verify(cf.address, wrapped));
    expect(capped.map((call) => call.gas)).toEqual([`0x${ETH_CALL_GAS_CAP.toString(16)}`]);
  });
});

describe('ERC-1271 answers are read as Solidity reads them: abi.decode(answer, (bytes4)) == 0x1626ba7e', () => {
  let chain: Testchain;
  let wallets: RealWallets;
  let registry: ChainRegistry;
  const shapes = Object.entries(ERC1271_ANSWER_SHAPES);

  beforeAll(async () => {
    chain = await startTestchain({ chainId: 31337, ens: false });
    wallets = await realWallets(chain);
    registry = createChainRegistry({ 31337: chain.url }, { timeoutMs: 5000, retryCount: 0 });
  });
  afterAll(() => chain?.stop());

  /** Signet's verdict: true when accepted, false when refused as INVALID_SIGNATURE (anything else fails the test). */
  const signetSays = async (address: `0x${string}`, message: string, signature: `0x${string}`) => {
    try {
      await verifySiweSignature({ message, signature, client: registry });
      return true;
    } catch (error) {
      expect(error).toBeInstanceOf(SiweError);
      expect((error as SiweError).type).toBe('INVALID_SIGNATURE');
      expect((error as SiweError).message).toContain(address);
      return false;
    }
  };

  it.each(shapes)(
    'asked directly (ERC-1271), the answer shape %s is accepted exactly when Solidity accepts it',
    async (_name, shape) => {
      const owner = key();
      const wallet = await wallets.shapedAnswerWallet(owner.address, shape);
      const message = messageFor(wallet, 31337);
      const signature = await owner.signMessage({ message });
      if (shape.valid) {
        await expect(verifySiweSignature({ message, signature, client: registry })).resolves.toMatchObject({
          address: wallet,
          method: 'eip1271',
        });
      } else {
        const error = await refusal(verifySiweSignature({ message, signature, client: registry }));
        expect(error.type).toBe('INVALID_SIGNATURE');
        expect(error.message).toBe(
          `signature was not made by ${wallet}: its contract wallet on chain 31337 answered that it is not valid`,
        );
      }
      // Another key's signature gets the plain refusal word, whatever the shape.
      expect(await signetSays(wallet, message, await key().signMessage({ message }))).toBe(false);
    },
  );

  it.each(shapes)(
    'ERC-8010 (authorization not on chain), the answer shape %s is accepted exactly when Solidity accepts it',
    async (_name, shape) => {
      const eoa = key();
      const message = messageFor(eoa.address, 31337);
      const signature = await wallets.signWithShapedAuthorization(eoa, message, shape);
      if (shape.valid) {
        await expect(verifySiweSignature({ message, signature, client: registry })).resolves.toMatchObject({
          address: eoa.address,
          method: 'erc8010',
        });
      } else {
        const error = await refusal(verifySiweSignature({ message, signature, client: registry }));
        expect(error.type).toBe('INVALID_SIGNATURE');
        expect(error.message).toBe(
          `signature was not made by ${eoa.address} (checked with its EIP-7702 authorization on chain 31337)`,
        );
      }
      expect(await chain.publicClient.getCode({ address: eoa.address })).toBeUndefined();
    },
  );

  it('the reference: Signet answers as OpenZeppelin’s SignatureChecker and abi.decode do, on both hostile shapes, every other shape and real wallets', async () => {
    const reference = await wallets.signatureCheckerReference();
    const [a, b] = [key(), key()];
    const cases: { name: string; wallet: `0x${string}`; sign(message: string): Promise<`0x${string}`>; expected: boolean }[] = [];
    for (const [name, shape] of shapes) {
      const owner = key();
      const wallet = await wallets.shapedAnswerWallet(owner.address, shape);
      cases.push({ name, wallet, sign: (message) => owner.signMessage({ message }), expected: shape.valid });
    }
    const account = await wallets.openZeppelin.deploy(a.address);
    cases.push({
      name: 'OpenZeppelin ERC-7739 account',
      wallet: account,
      sign: (message) => wallets.openZeppelin.sign(account, message, a),
      expected: true,
    });
    cases.push({
      name: 'OpenZeppelin ERC-7739 account, raw signature',
      wallet: account,
      sign: (message) => a.signMessage({ message }),
      expected: false,
    });
    const safe = await wallets.safe.deploy([a.address, b.address], 2, 301n);
    cases.push({
      name: 'Safe 2-of-2',
      wallet: safe,
      sign: (message) => wallets.safe.sign(safe, message, [a, b]),
      expected: true,
    });
    cases.push({
      name: 'Safe 2-of-2, one owner',
      wallet: safe,
      sign: (message) => wallets.safe.sign(safe, message, [a]),
      expected: false,
    });

    const verdicts = [];
    for (const { name, wallet, sign, expected } of cases) {
      const message = messageFor(wallet, 31337);
      const signature = await sign(message);
      const hash = hashMessage(message);
      verdicts.push({
        name,
        openZeppelin: await reference.openZeppelin(wallet, hash, signature),
        abiDecode: await reference.abiDecode(wallet, hash, signature),
        signet: await signetSays(wallet, message, signature),
        expected,
      });
    }
    // One table, so a failure shows every verdict at once.
    expect(verdicts).toEqual(
      cases.map(({ name, expected }) => ({ name, openZeppelin: expected, abiDecode: expected, signet: expected, expected })),
    );
    // Both hostile shapes are among them, one refused and one accepted by Solidity.
    expect(verdicts.find((v) => v.name === 'dirtyWord')?.openZeppelin).toBe(false);
    expect(verdicts.find((v) => v.name === 'trailingData')?.openZeppelin).toBe(true);
  });
});

describe('chains that need a deployed verifier (item 3)', () => {
  it('the known verifiers are viem’s own chain definitions', () => {
    for (const chain of [zksync, zksyncSepoliaTestnet, abstract, abstractTestnet]) {
      expect(KNOWN_CHAINS[chain.id]).toEqual({
        verifier: chain.contracts.erc6492Verifier.address,
        multicall3: chain.contracts.multicall3.address,
      });
    }
  });

  it('zkSync Era (324): by default the eth_call goes to its deployed verifier, never deployless; without one, a clear refusal and no call', async () => {
    const era = await startTestchain({ chainId: 324, ens: false });
    try {
      const wallets = await realWallets(era);
      // viem's zkSync Era verifier address, with a verifier's code placed there on this chain.
      const known = await wallets.deployVerifier(KNOWN_CHAINS[324]?.verifier);
      const owner = key();
      const cf = await era.counterfactualWallet(owner.address, 7n);
      const message = messageFor(cf.address, 324);
      const signature = era.wrap6492(await owner.signMessage({ message }), cf);
      const registry = createChainRegistry({ 324: era.url });
      const calls = await ethCallsDuring(era, async () => {
        await expect(verifySiweSignature({ message, signature, client: registry })).resolves.toMatchObject({ method: 'eip6492' });
      });
      expect(calls).toHaveLength(1);
      expect(calls[0]?.to?.toLowerCase()).toBe(known.toLowerCase());
      expect(calls.every((call) => call.to !== undefined)).toBe(true);

      // A client for chain 324 that knows no verifier: refused before any call, in words.
      const bare = createPublicClient({
        chain: defineChain({ ...era.chain, contracts: {} }),
        transport: http(era.url),
      }) as PublicClient;
      const before = era.node.requestCount;
      const error = await refusal(verifySiweSignature({ message, signature, client: bare }));
      expect(error.type).toBe('RPC_UNAVAILABLE');
      expect(error.message).toBe(
        'chain 324 cannot run a deployless eth_call and no deployed ERC-6492 verifier is configured for it, so a wallet that is not deployed yet cannot be checked there',
      );
      expect(era.node.requestCount).toBe(before);
    } finally {
      await era.stop();
    }
  });

  it('signatureVerifiers: any chain can be told to use a deployed verifier', async () => {
    const local = await startTestchain({ chainId: 31337, ens: false });
    try {
      const wallets = await realWallets(local);
      const verifier = await wallets.deployVerifier();
      const owner = key();
      const cf = await local.counterfactualWallet(owner.address, 8n);
      const message = messageFor(cf.address, 31337);
      const registry = createChainRegistry({ 31337: local.url }, { signatureVerifiers: { 31337: verifier } });
      const good = local.wrap6492(await owner.signMessage({ message }), cf);
      const calls = await ethCallsDuring(local, async () => {
        await expect(verifySiweSignature({ message, signature: good, client: registry })).resolves.toMatchObject({
          method: 'eip6492',
        });
      });
      expect(calls.map((call) => call.to?.toLowerCase())).toEqual([verifier.toLowerCase()]);
      const bad = local.wrap6492(await key().signMessage({ message }), cf);
      expect((await refusal(verifySiweSignature({ message, signature: bad, client: registry }))).type).toBe('INVALID_SIGNATURE');
      expect(await local.publicClient.getCode({ address: cf.address })).toBeUndefined();
    } finally {
      await local.stop();
    }
  });
});
