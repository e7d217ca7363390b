/**
 * What a sign-in learned, kept per grant: the signed message and signature, how it was checked
 * (`method`), the ENS name, avatar and e-mail. The claims of a token are those of the sign-in
 * that produced it (relying-party/claims.ts), and whether a client may be given a
 * chain-independent subject is decided from it (relying-party/subject.ts).
 */
import type { SignatureMethod as BitcoinSignatureMethod } from '@signet/siwb';
import type { BitcoinNetwork } from '@signet/siwb/message';
import type { SiweVerificationMethod } from '@signet/siwe';
import type { SolanaNetwork } from '@signet/siws/message';
import type { Store } from '../storage/index.ts';

/**
 * How a signature was checked: an Ethereum wallet's way (`eoa`, `erc1271`, …), a Solana key's
 * (`ed25519`), a Bitcoin address's (`bip322-simple`, `bip322-full`, `bip137`), or a passkey of
 * the account (`passkey`: no wallet signed; `accountId` is then the account's id).
 */
export type SignInMethod = SiweVerificationMethod | 'ed25519' | BitcoinSignatureMethod | 'passkey';

export type SignInRecord = {
  accountId: string;
  /** EIP-55 for Ethereum, base58 for Solana, the message's spelling for Bitcoin (bech32 in lower case); absent for a passkey. */
  address?: string;
  /** Ethereum: the chain signed on. */
  chainId?: number;
  /** Solana or Bitcoin (absent for Ethereum, as in records of earlier versions). */
  namespace?: 'solana' | 'bip122';
  /** Solana: the cluster signed on; Bitcoin: the network. */
  network?: SolanaNetwork | BitcoinNetwork;
  /** The signed message; absent for a passkey. */
  message?: string;
  /** As posted for Ethereum and Bitcoin (base64); base58 for Solana; absent for a passkey. */
  signature?: string;
  method: SignInMethod;
  ensName?: string;
  avatar?: string;
  /** The ENS `email` text record of the name (self-asserted by the name's owner, not verified). */
  email?: string;
  signedInAt: number;
  /** The wallet id accounts know the signer by (wallets/ids.ts); absent in records of earlier versions. */
  wallet?: string;
  /** The Signet account the wallet (or passkey) belonged to at this sign-in; absent in records of earlier versions. */
  account?: string;
  /** A passkey sign-in: the passkey's credential id (accounts/passkeys.ts). */
  passkey?: string;
  /** An agent's sign-in by the JWT bearer grant (agents/): its key signed an assertion, no message. */
  agent?: boolean;
};

const recordKey = (grantId: string) => `signin:${grantId}`;

export async function saveSignIn(store: Store, grantId: string, record: SignInRecord, ttlSeconds: number): Promise<void> {
  await store.set(recordKey(grantId), JSON.stringify(record), ttlSeconds);
}

export async function loadSignIn(store: Store, grantId: string | undefined): Promise<SignInRecord | undefined> {
  if (!grantId) return undefined;
  const raw = await store.get(recordKey(grantId));
  return raw === undefined ? undefined : (JSON.parse(raw) as SignInRecord);
}
