/**
 * Real third-party wallets on the local chain, deployed only when a test asks for them (the chain
 * itself still starts in a fraction of a second):
 *
 *  - Safe 1.4.1 from Safe's own published build artifacts (`@safe-global/safe-contracts`):
 *    SafeL2 singleton, SafeProxyFactory, CompatibilityFallbackHandler and SignMessageLib. Safes are
 *    proxies made with `createProxyWithNonce` + `setup`, exactly as the Safe app makes them.
 *  - OpenZeppelin Contracts 5.x accounts (`@openzeppelin/contracts`, compiled with solc-js): an
 *    ECDSA account whose ERC-1271 check is ERC-7739, and the EIP-7702 flavour of it as the code an
 *    EOA delegates to.
 *  - An ERC-6492 verifier contract (what zkSync Era and Abstract have deployed), hostile contracts
 *    that burn all their gas, a wallet that accepts signatures of any length, wallets whose
 *    ERC-1271 answer has an odd shape, and OpenZeppelin's `SignatureChecker` as the reference for
 *    reading those answers.
 *
 * Signatures are made the way each wallet's own software makes them (Safe: owners' EIP-712
 * `SafeMessage` signatures sorted by owner; OpenZeppelin: ERC-7739's nested `PersonalSign`).
 */
import { createRequire } from 'node:module';
import {
  type Abi,
  type Address,
  concat,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashMessage,
  http,
  pad,
  parseAbi,
  serializeErc8010Signature,
  size,
  toHex,
  toPrefixedMessage,
  zeroAddress,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type Artifact, compileWallets } from './compile.ts';
import type { CounterfactualWallet, Testchain } from './types.ts';

const require = createRequire(import.meta.url);

function safeArtifact(path: string): Artifact {
  const json = require(`@safe-global/safe-contracts/build/artifacts/contracts/${path}.json`) as { abi: Abi; bytecode: Hex };
  return { abi: json.abi, bytecode: json.bytecode };
}

const SAFE_ABI = parseAbi([
  'function setup(address[] owners, uint256 threshold, address to, bytes data, address fallbackHandler, address paymentToken, uint256 payment, address paymentReceiver)',
  'function nonce() view returns (uint256)',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool)',
]);
const FACTORY_ABI = parseAbi([
  'function createProxyWithNonce(address singleton, bytes initializer, uint256 saltNonce) returns (address proxy)',
]);
const HANDLER_ABI = parseAbi(['function encodeMessageDataForSafe(address safe, bytes message) view returns (bytes)']);
const SIGN_MESSAGE_LIB_ABI = parseAbi(['function signMessage(bytes data)']);
const APPROVED_ABI = parseAbi(['function approve(bytes32 hash, bytes signature)']);
const REFERENCE_ABI = parseAbi([
  'function openZeppelin(address signer, bytes32 hash, bytes signature) view returns (bool)',
  'function abiDecode(address signer, bytes32 hash, bytes signature) view returns (bool)',
]);

/** The ERC-1271 magic value as a whole ABI word: `0x1626ba7e` then 28 zero bytes. */
const MAGIC_WORD: Hex = pad('0x1626ba7e', { dir: 'right' });

/**
 * Shapes of an ERC-1271 answer (the raw bytes `isValidSignature` returns): `word`, then 0xff
 * bytes, cut to `length` bytes. `valid` is what Solidity's `abi.decode(answer, (bytes4)) ==
 * 0x1626ba7e` (and OpenZeppelin's `SignatureChecker`) says of it.
 */
export const ERC1271_ANSWER_SHAPES = {
  /** The magic value then 28 zero bytes: what a wallet's `returns (bytes4)` sends. */
  clean: { word: MAGIC_WORD, length: 32, valid: true },
  /** The magic value, but non-zero bytes after it in the word: the decoder refuses it. */
  dirtyWord: { word: `0x1626ba7e${'00'.repeat(27)}01`, length: 32, valid: false },
  /** The magic value with 0xdeadbeef… after it in the word: the decoder refuses it. */
  dirtyWordHigh: { word: `0x1626ba7e${'deadbeef'.repeat(7)}`, length: 32, valid: false },
  /** The clean word, then 32 more bytes: the decoder reads the first word and ignores the rest. */
  trailingData: { word: MAGIC_WORD, length: 64, valid: true },
  /** The clean word, then 5 more bytes (not a whole word): still read as the first word. */
  trailingOddBytes: { word: MAGIC_WORD, length: 37, valid: true },
  /** Only the four bytes of the magic value: shorter than a word, the decoder refuses it. */
  bareSelector: { word: MAGIC_WORD, length: 4, valid: false },
  /** The magic value and 27 zero bytes (31 bytes): shorter than a word, refused. */
  shortWord: { word: MAGIC_WORD, length: 31, valid: false },
} as const satisfies Record<string, Erc1271AnswerShape>;

export type Erc1271AnswerShape = { word: Hex; length: number; valid: boolean };

/** One owner's part of a Safe signature: an EOA's 65 bytes, or a contract owner's ERC-1271 signature. */
export type SafeSignaturePart = { owner: Address; signature: Hex; contract?: boolean };

/**
 * Safe's signature encoding: 65-byte entries sorted by owner address; a contract owner's entry is
 * `r` = its address, `s` = the offset of its signature in the dynamic part, `v` = 0.
 */
export function encodeSafeSignatures(parts: SafeSignaturePart[]): Hex {
  const sorted = [...parts].sort((a, b) => (BigInt(a.owner) < BigInt(b.owner) ? -1 : 1));
  let offset = sorted.length * 65;
  const statics: Hex[] = [];
  const dynamics: Hex[] = [];
  for (const part of sorted) {
    if (!part.contract) {
      statics.push(part.signature);
      continue;
    }
    statics.push(concat([pad(part.owner), pad(toHex(offset)), '0x00']));
    const dynamic = concat([pad(toHex(size(part.signature))), part.signature]);
    dynamics.push(dynamic);
    offset += size(dynamic);
  }
  return concat([...statics, ...dynamics]);
}

export type RealWallets = {
  safe: {
    singleton: Address;
    factory: Address;
    fallbackHandler: Address;
    signMessageLib: Address;
    /** Deploys a Safe proxy with these owners and threshold; returns its address. */
    deploy(owners: Address[], threshold: number, saltNonce?: bigint): Promise<Address>;
    /** The same Safe, not deployed: its address and the factory call that would deploy it (EIP-6492). */
    counterfactual(owners: Address[], threshold: number, saltNonce?: bigint): Promise<CounterfactualWallet>;
    /** The bytes a Safe's owners sign for `isValidSignature(hash, …)`: EIP-712 SafeMessage over the hash. */
    messageData(safe: Address, hash: Hex): Promise<Hex>;
    /** Owners' off-chain signatures of a text for `safe`, encoded as the Safe expects. */
    sign(safe: Address, message: string, signers: PrivateKeyAccount[]): Promise<Hex>;
    /** One owner's EIP-712 signature over SafeMessage{message: data} in `safe`'s domain. */
    signData(safe: Address, data: Hex, signer: PrivateKeyAccount): Promise<Hex>;
    /**
     * A Safe owned by another Safe (and EOAs): the inner Safe's owners sign the outer Safe's
     * message data in the inner Safe's domain; that is the inner Safe's contract signature.
     */
    signNested(
      outer: Address,
      inner: Address,
      message: string,
      innerSigners: PrivateKeyAccount[],
      outerSigners: PrivateKeyAccount[],
    ): Promise<Hex>;
    /** "On-chain signing" (the Safe app's option): SignMessageLib marks the text signed; the signature is then `0x`. */
    signOnChain(safe: Address, message: string, signers: PrivateKeyAccount[]): Promise<void>;
  };
  openZeppelin: {
    /** Deploys an OpenZeppelin ECDSA account (ERC-7739) for `signer`. */
    deploy(signer: Address): Promise<Address>;
    /** ERC-7739 nested PersonalSign signature of a text by the account's signer. */
    sign(account: Address, message: string, signer: PrivateKeyAccount): Promise<Hex>;
  };
  eip7702: {
    /** The OpenZeppelin EIP-7702 account code EOAs delegate to. */
    implementation: Address;
    /** Puts the delegation on chain (a type-4 transaction sent by the deployer). */
    delegate(eoa: PrivateKeyAccount): Promise<void>;
    /** ERC-7739 signature of a text by a (delegated) EOA. */
    sign(eoa: PrivateKeyAccount, message: string): Promise<Hex>;
    /** ERC-8010: the same signature wrapped with an authorization that is not on chain yet. */
    signWithAuthorization(eoa: PrivateKeyAccount, message: string): Promise<Hex>;
  };
  /** A wallet whose ERC-1271 check burns all its gas. */
  gasBurningWallet(): Promise<Address>;
  /** A "token" whose balanceOf burns all its gas. */
  gasBurningToken(): Promise<Address>;
  /** A wallet that accepts, for a text its owner approved, the exact signature bytes registered (any length). */
  approvedSignatureWallet(owner: PrivateKeyAccount): Promise<{
    address: Address;
    approve(message: string, signature: Hex): Promise<void>;
  }>;
  /** Deploys the ERC-6492 verifier; with `at`, also places its code there (a chain's known address). */
  deployVerifier(at?: Address): Promise<Address>;
  /**
   * A wallet that answers its owner's own signature (65-byte ECDSA over the hash, as
   * `owner.signMessage` makes) with an answer of this shape, and anything else with 0xffffffff.
   */
  shapedAnswerWallet(owner: Address, shape: Erc1271AnswerShape): Promise<Address>;
  /**
   * ERC-8010: `eoa`'s own signature of `message`, with an EIP-7702 authorization (not on chain)
   * to a ShapedAnswerWallet: the delegated account answers its own signature in this shape.
   */
  signWithShapedAuthorization(eoa: PrivateKeyAccount, message: string, shape: Erc1271AnswerShape): Promise<Hex>;
  /** OpenZeppelin's `SignatureChecker` and Solidity's `abi.decode`, asked on chain about a wallet's answer. */
  signatureCheckerReference(): Promise<{
    address: Address;
    /** `SignatureChecker.isValidERC1271SignatureNow(signer, hash, signature)`. */
    openZeppelin(signer: Address, hash: Hex, signature: Hex): Promise<boolean>;
    /** `abi.decode(answer, (bytes4)) == 0x1626ba7e`, a revert or a refused decode being false. */
    abiDecode(signer: Address, hash: Hex, signature: Hex): Promise<boolean>;
  }>;
};

const cache = new WeakMap<Testchain, Promise<RealWallets>>();

/** The real wallets of one chain: their infrastructure is deployed on first use, once. */
export function realWallets(chain: Testchain): Promise<RealWallets> {
  let wallets = cache.get(chain);
  if (!wallets) {
    wallets = setUp(chain);
    cache.set(chain, wallets);
  }
  return wallets;
}

/** What every part of the set-up uses: the chain, a funded sender of its own, and deploy / send / confirm. */
type Deployer = ReturnType<typeof deployerFor>;

function deployerFor(chain: Testchain) {
  const { publicClient } = chain;
  // Its own funded account, so these transactions never race the deployer's nonces.
  const sender = chain.accounts[1] as PrivateKeyAccount;
  const walletClient = createWalletClient({ chain: chain.chain, transport: http(chain.url), account: sender });
  const compiled = compileWallets();
  const confirm = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const deploy = async (contract: Artifact, args: readonly unknown[] = []) => {
    const hash = await walletClient.deployContract({ abi: contract.abi, bytecode: contract.bytecode, args, chain: null });
    const receipt = await confirm(hash);
    if (!receipt.contractAddress) throw new Error('deployment created no contract');
    return getAddress(receipt.contractAddress);
  };
  return {
    chain,
    publicClient,
    sender,
    walletClient,
    confirm,
    deploy,
    send: async (to: Address, data: Hex) => confirm(await walletClient.sendTransaction({ to, data, chain: null })),
    artifact: (name: string) => compiled[name] as Artifact,
    /** ERC-7739's nested PersonalSign signature of a text, for an OpenZeppelin account named `name`. */
    signErc7739: (account: Address, name: string, message: string, signer: PrivateKeyAccount) =>
      signer.signTypedData({
        domain: { name, version: '1', chainId: chain.chainId, verifyingContract: account },
        types: { PersonalSign: [{ name: 'prefixed', type: 'bytes' }] },
        primaryType: 'PersonalSign',
        message: { prefixed: toPrefixedMessage(message) },
      }),
  };
}

async function setUp(chain: Testchain): Promise<RealWallets> {
  const d = deployerFor(chain);
  const safe = await safeWallets(d);
  const eip7702 = await eip7702Wallets(d);
  return {
    safe,
    openZeppelin: {
      deploy: (signer) => d.deploy(d.artifact('OpenZeppelinAccountECDSA'), [signer]),
      sign: (account, message, signer) => d.signErc7739(account, 'OpenZeppelinAccountECDSA', message, signer),
    },
    eip7702,
    ...testContracts(d),
  };
}

/** Safe 1.4.1's infrastructure, deployed, and Safes made and signed for as the Safe app does. */
async function safeWallets(d: Deployer): Promise<RealWallets['safe']> {
  const singleton = await d.deploy(safeArtifact('SafeL2.sol/SafeL2'));
  const factory = await d.deploy(safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory'));
  const fallbackHandler = await d.deploy(safeArtifact('handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler'));
  const signMessageLib = await d.deploy(safeArtifact('libraries/SignMessageLib.sol/SignMessageLib'));
  const creation = (owners: Address[], threshold: number, saltNonce: bigint) => {
    const initializer = encodeFunctionData({
      abi: SAFE_ABI,
      functionName: 'setup',
      args: [owners, BigInt(threshold), zeroAddress, '0x', fallbackHandler, zeroAddress, 0n, zeroAddress],
    });
    return encodeFunctionData({
      abi: FACTORY_ABI,
      functionName: 'createProxyWithNonce',
      args: [singleton, initializer, saltNonce],
    });
  };
  const predicted = async (factoryData: Hex) => {
    const { data } = await d.publicClient.call({ account: d.sender.address, to: factory, data: factoryData });
    return getAddress(`0x${(data as Hex).slice(-40)}`);
  };
  const messageData = (safe: Address, hash: Hex) =>
    d.publicClient.readContract({
      address: fallbackHandler,
      abi: HANDLER_ABI,
      functionName: 'encodeMessageDataForSafe',
      args: [safe, pad(hash)],
    });
  const signData = (safe: Address, data: Hex, signer: PrivateKeyAccount) =>
    signer.signTypedData({
      domain: { chainId: d.chain.chainId, verifyingContract: safe },
      types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
      primaryType: 'SafeMessage',
      message: { message: data },
    });
  const partsOf = (signers: PrivateKeyAccount[], sign: (signer: PrivateKeyAccount) => Promise<Hex>) =>
    Promise.all(signers.map(async (signer) => ({ owner: signer.address, signature: await sign(signer) })));
  return {
    singleton,
    factory,
    fallbackHandler,
    signMessageLib,
    async deploy(owners, threshold, saltNonce = 0n) {
      const data = creation(owners, threshold, saltNonce);
      const address = await predicted(data);
      await d.send(factory, data);
      return address;
    },
    async counterfactual(owners, threshold, saltNonce = 0n) {
      const factoryData = creation(owners, threshold, saltNonce);
      return { address: await predicted(factoryData), factory, factoryData };
    },
    messageData,
    signData,
    async sign(address, message, signers) {
      const hash = pad(hashMessage(message));
      return encodeSafeSignatures(await partsOf(signers, (signer) => signData(address, hash, signer)));
    },
    async signNested(outer, inner, message, innerSigners, outerSigners) {
      const data = await messageData(outer, hashMessage(message));
      const innerParts = await partsOf(innerSigners, (signer) => signData(inner, data, signer));
      const outerParts = await partsOf(outerSigners, (signer) => signData(outer, pad(hashMessage(message)), signer));
      return encodeSafeSignatures([{ owner: inner, signature: encodeSafeSignatures(innerParts), contract: true }, ...outerParts]);
    },
    signOnChain: (address, message, signers) => signOnChain(d, { safe: address, signMessageLib }, message, signers),
  };
}

/** EIP-712 types of a Safe transaction. */
const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** "On-chain signing" (the Safe app's option): a Safe transaction delegatecalls SignMessageLib, which marks the text signed. */
async function signOnChain(
  d: Deployer,
  { safe, signMessageLib }: { safe: Address; signMessageLib: Address },
  message: string,
  signers: PrivateKeyAccount[],
): Promise<void> {
  const data = encodeFunctionData({ abi: SIGN_MESSAGE_LIB_ABI, functionName: 'signMessage', args: [pad(hashMessage(message))] });
  const nonce = await d.publicClient.readContract({ address: safe, abi: SAFE_ABI, functionName: 'nonce' });
  const transaction = {
    to: signMessageLib,
    value: 0n,
    data,
    operation: 1, // delegatecall: SignMessageLib writes the Safe's own storage
    safeTxGas: 0n,
    baseGas: 0n,
    gasPrice: 0n,
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce,
  } as const;
  const parts = await Promise.all(
    signers.map(async (signer) => ({
      owner: signer.address,
      signature: await signer.signTypedData({
        domain: { chainId: d.chain.chainId, verifyingContract: safe },
        types: SAFE_TX_TYPES,
        primaryType: 'SafeTx',
        message: transaction,
      }),
    })),
  );
  await d.send(
    safe,
    encodeFunctionData({
      abi: SAFE_ABI,
      functionName: 'execTransaction',
      args: [signMessageLib, 0n, data, 1, 0n, 0n, 0n, zeroAddress, zeroAddress, encodeSafeSignatures(parts)],
    }),
  );
}

/** OpenZeppelin's EIP-7702 account as the code EOAs delegate to, on chain or (ERC-8010) in the signature. */
async function eip7702Wallets(d: Deployer): Promise<RealWallets['eip7702']> {
  const implementation = await d.deploy(d.artifact('OpenZeppelinAccount7702'));
  const authorize = async (eoa: PrivateKeyAccount) => {
    const nonce = await d.publicClient.getTransactionCount({ address: eoa.address });
    return eoa.signAuthorization({ address: implementation, chainId: d.chain.chainId, nonce });
  };
  return {
    implementation,
    async delegate(eoa) {
      const authorization = await authorize(eoa);
      await d.confirm(
        await d.walletClient.sendTransaction({ to: eoa.address, data: '0x', authorizationList: [authorization], chain: null }),
      );
    },
    sign: (eoa, message) => d.signErc7739(eoa.address, 'OpenZeppelinAccount7702', message, eoa),
    async signWithAuthorization(eoa, message) {
      const authorization = await authorize(eoa);
      const signature = await d.signErc7739(eoa.address, 'OpenZeppelinAccount7702', message, eoa);
      return serializeErc8010Signature({ authorization, signature });
    },
  };
}

type TestContracts = Omit<RealWallets, 'safe' | 'openZeppelin' | 'eip7702'>;

/** Contracts of our own for the cases no published wallet shows: hostile ones, odd answers, the reference decoder. */
function testContracts(d: Deployer): TestContracts {
  const shapedImplementations = new Map<string, Promise<Address>>();
  /** One implementation per shape, shared by every EOA (the signer is the delegating account itself). */
  const shapedImplementation = (shape: Erc1271AnswerShape) => {
    const key = `${shape.word}:${shape.length}`;
    let implementation = shapedImplementations.get(key);
    if (!implementation) {
      implementation = d.deploy(d.artifact('ShapedAnswerWallet'), [zeroAddress, shape.word, BigInt(shape.length)]);
      shapedImplementations.set(key, implementation);
    }
    return implementation;
  };
  return {
    gasBurningWallet: () => d.deploy(d.artifact('GasBurningWallet')),
    gasBurningToken: () => d.deploy(d.artifact('GasBurningToken')),
    approvedSignatureWallet: (owner) => approvedSignatureWallet(d, owner),
    shapedAnswerWallet: (owner, shape) => d.deploy(d.artifact('ShapedAnswerWallet'), [owner, shape.word, BigInt(shape.length)]),
    async signWithShapedAuthorization(eoa, message, shape) {
      const implementation = await shapedImplementation(shape);
      const nonce = await d.publicClient.getTransactionCount({ address: eoa.address });
      const authorization = await eoa.signAuthorization({ address: implementation, chainId: d.chain.chainId, nonce });
      return serializeErc8010Signature({ authorization, signature: await eoa.signMessage({ message }) });
    },
    async signatureCheckerReference() {
      const address = await d.deploy(d.artifact('SignatureCheckerReference'));
      const ask = (functionName: 'openZeppelin' | 'abiDecode') => (signer: Address, hash: Hex, signature: Hex) =>
        d.publicClient.readContract({ address, abi: REFERENCE_ABI, functionName, args: [signer, hash, signature] });
      return { address, openZeppelin: ask('openZeppelin'), abiDecode: ask('abiDecode') };
    },
    async deployVerifier(at) {
      const deployed = await d.deploy(d.artifact('SignatureVerifier'));
      if (!at) return deployed;
      const code = await d.publicClient.getCode({ address: deployed });
      await d.publicClient.request({ method: 'hardhat_setCode' as never, params: [at, code] as never });
      return getAddress(at);
    },
  };
}

/** A wallet that accepts, for a text its owner approved on chain, the exact signature bytes registered. */
async function approvedSignatureWallet(d: Deployer, owner: PrivateKeyAccount) {
  const address = await d.deploy(d.artifact('ApprovedSignatureWallet'), [owner.address]);
  const ownerClient = createWalletClient({ chain: d.chain.chain, transport: http(d.chain.url), account: owner });
  return {
    address,
    async approve(message: string, signature: Hex) {
      await d.chain.setBalance(owner.address, 10n ** 18n);
      const data = encodeFunctionData({ abi: APPROVED_ABI, functionName: 'approve', args: [hashMessage(message), signature] });
      await d.confirm(await ownerClient.sendTransaction({ to: address, data, chain: null }));
    },
  };
}
