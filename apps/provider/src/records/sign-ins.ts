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
  /**
   * A wallet's sign-in through the authorization endpoint: the redirect URIs its signed messages
   * named as their resource, in this browser session with this client (the one just signed for,
   * and those signed for before in the same session by the same account). A silent authorization
   * to another redirect URI asks for a signature (oidc/provider.ts, signInPolicy). Absent for a
   * passkey, a device sign-in and in records of earlier versions.
   */
  redirectUris?: string[];
  /** An agent's sign-in by the JWT bearer grant (agents/): its key signed an assertion, no message. */
  agent?: boolean;
};

/** How many redirect URIs a session's sign-in record keeps for one client. */
export const MAX_SIGNED_REDIRECT_URIS = 20;

const recordKey = (grantId: string) => `signin:${grantId}`;

export async function saveSignIn(store: Store, grantId: string, record: SignInRecord, ttlSeconds: number): Promise<void> {
  await store.set(recordKey(grantId), JSON.stringify(record), ttlSeconds);
}

export async function loadSignIn(store: Store, grantId: string | undefined): Promise<SignInRecord | undefined> {
  if (!grantId) return undefined;
  const raw = await store.get(recordKey(grantId));
  return raw === undefined ? undefined : (JSON.parse(raw) as SignInRecord);
}

/**
 * The redirect URIs a wallet's sign-in record keeps (SignInRecord.redirectUris): the one this
 * sign-in's message named, and those the session's previous grant for this client was signed for
 * when the same account signed it. Undefined without a redirect URI (a device sign-in).
 */
export async function signedRedirectUris(
  store: Store,
  redirectUri: string | undefined,
  previous: { grantId?: string; accountId: string },
): Promise<string[] | undefined> {
  if (redirectUri === undefined) return undefined;
  const before = await loadSignIn(store, previous.grantId);
  const kept = before?.accountId === previous.accountId ? (before.redirectUris ?? []) : [];
  return [redirectUri, ...kept.filter((uri) => uri !== redirectUri)].slice(0, MAX_SIGNED_REDIRECT_URIS);
}
