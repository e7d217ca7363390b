/**
 * A signed message checked against the details it was made from: the message's first line picks
 * its kind of account; an Ethereum message goes to `@signet/siwe` (offline for a plain account,
 * one capped `eth_call` for a contract), with a gated client's holdings and the ENS name looked up
 * at once; a Solana or Bitcoin message is checked offline (solana/verify.ts, bitcoin/verify.ts). Used by the sign-in
 * (`POST /interaction/<uid>`) and by the account's own messages (link a wallet, prove it is you).
 */
import {
  isEoaSignatureOf,
  parseSiweMessage,
  type SiweVerificationClient,
  validateSiweMessage,
  verifyContractWalletSignature,
} from '@signet/siwe/offline';
import { clientFields } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { AccessGate } from '../onchain/access.ts';
import type { EnsProfile, EnsResolver } from '../onchain/names/index.ts';
import type { SignInRecord } from '../records/sign-ins.ts';
import { accountIdOf } from '../wallets/ethereum.ts';
import { walletIdOf } from '../wallets/ids.ts';
import type { SignInProgress } from './audit.ts';
import { expectationsFor } from './contract.ts';
import type { InteractionDetails } from './details.ts';
import { expiresWithin, SIGN_IN_FORMS } from './given-fields.ts';
import { acceptedNamespace } from './namespaces.ts';

export type SignedBody = { message: string; signature: string };

/** A verified signer: what its sign-in record keeps, and the wallet id accounts know it by (wallets/ids.ts). */
export type Signer = Omit<SignInRecord, 'signedInAt' | 'account' | 'wallet'> & { wallet: string };

export type VerifyServices = {
  config: Config;
  chains: SiweVerificationClient;
  ens: EnsResolver;
  access: AccessGate;
  metrics: Metrics;
  tracing: Tracing;
};

/**
 * An Ethereum message checked against its details (EIP-4361, `Chain ID` also as `eip155:<id>`),
 * its expiration within the sign-in's own (or none), then its signature: offline for a plain
 * account, one capped `eth_call` on the message's chain for a contract wallet.
 */
async function verifyEthereumMessage(
  chains: SiweVerificationClient,
  details: InteractionDetails,
  body: SignedBody,
  options: { now: number; clockSkewMs: number },
) {
  const message = validateSiweMessage(parseSiweMessage(body.message, SIGN_IN_FORMS), expectationsFor(details, options));
  if (!expiresWithin(details.expiresAt, message.expirationTime)) {
    throw new HttpError(
      'MESSAGE_MISMATCH',
      `the message expires at ${message.expirationTime}, after this sign-in does (${details.expiresAt}): leave Expiration Time out, or write the one the details give`,
    );
  }
  // The message as parsed above: its two steps (offline recovery, then the chain for a contract wallet), no second parse.
  const { address, chainId } = message;
  const method = isEoaSignatureOf(message, body.message, body.signature)
    ? ('eoa' as const)
    : await verifyContractWalletSignature(message, body.message, body.signature, chains);
  return { address, chainId, method };
}

/**
 * Verifies `body` for `details`. With `client`, the sign-in's client: its allowed kinds of
 * account, and its access conditions (a gated client's holdings are checked). Throws the
 * libraries' typed errors, `NAMESPACE_NOT_ALLOWED` or `ACCESS_CONDITION_NOT_MET`.
 */
/**
 * The Solana and Bitcoin verifiers (Ed25519, BIP-322 and their libraries), loaded at a
 * deployment's first such sign-in: one that takes Ethereum wallets only never holds them.
 */
let bitcoin: Promise<typeof import('./bitcoin/verify.ts')> | undefined;
let solana: Promise<typeof import('./solana/verify.ts')> | undefined;
const bitcoinVerifier = () => {
  bitcoin ??= import('./bitcoin/verify.ts');
  return bitcoin;
};
const solanaVerifier = () => {
  solana ??= import('./solana/verify.ts');
  return solana;
};

export async function verifySigner(
  services: VerifyServices,
  details: InteractionDetails,
  body: SignedBody,
  { client, progress = {} }: { client?: { clientId: string }; progress?: SignInProgress } = {},
): Promise<Signer> {
  const { config, tracing, metrics } = services;
  const started = performance.now();
  const now = Date.now();
  const clockSkewMs = config.clockSkewSeconds * 1000;
  // The message's first line names its kind of account; one this sign-in does not take is refused unchecked.
  const namespace = acceptedNamespace(body.message, details.namespaces, config, client ? clientFields(client) : {});
  if (namespace === 'bip122' || namespace === 'solana') {
    // Checked offline, by the message's own library: no node, no name.
    const [verify, networkAttribute] =
      namespace === 'bip122'
        ? [(await bitcoinVerifier()).verifyBitcoinSignIn, 'signet.bitcoin.network']
        : [(await solanaVerifier()).verifySolanaSignIn, 'signet.solana.network'];
    const verified = await tracing.span('signet.siwe.verify', {}, async (span) => {
      const result = verify(body, details, { now, clockSkewMs });
      span.set('signet.siwe.method', result.method);
      span.set(networkAttribute, result.network);
      return result;
    });
    metrics.verification(performance.now() - started, verified.method);
    progress.verified = { account: verified.accountId, method: verified.method };
    return { ...verified, wallet: walletIdOf({ namespace, accountId: verified.accountId }) };
  }
  const verified = await tracing.span('signet.siwe.verify', {}, async (span) => {
    const result = await verifyEthereumMessage(services.chains, details, body, { now, clockSkewMs });
    span.set('signet.siwe.method', result.method);
    span.set('signet.chain_id', result.chainId);
    return result;
  });
  metrics.verification(performance.now() - started, verified.method);
  const accountId = accountIdOf(verified.chainId, verified.address);
  progress.verified = { account: accountId, method: verified.method };
  // The holdings check and the name lookup do not depend on each other: both start now. A
  // refusal by the access check still refuses (the lookup is left to finish on its own), and
  // the lookup never fails a sign-in (its fallback is the address).
  const named = tracing
    .span('signet.ens.resolve', {}, () =>
      services.ens.resolve(verified.address, { chainId: verified.chainId, contractWallet: verified.method !== 'eoa' }),
    )
    .catch(() => ({}) as EnsProfile);
  // A gated client: the signer (a contract wallet by its own address, on its own chain) must hold what it asks.
  if (client) {
    await tracing.span('signet.access.check', { 'signet.client_id': client.clientId }, () =>
      services.access.enforce(client, accountId, verified.address, verified.method),
    );
  }
  const profile = await named;
  return {
    accountId,
    address: verified.address,
    chainId: verified.chainId,
    message: body.message,
    signature: body.signature,
    method: verified.method,
    ensName: profile.name,
    avatar: profile.avatar,
    email: profile.email,
    wallet: walletIdOf({ namespace: 'eip155', address: verified.address, chainId: verified.chainId, method: verified.method }),
  };
}
