/** Solana account ids: CAIP-10 `solana:<CAIP-2 reference>:<base58 address>`, the `sub` of a Solana sign-in. */
import { base58 } from '@scure/base';
import { isSolanaAddress, SOLANA_CHAIN_REFERENCES, type SolanaNetwork } from '@signet/siws/message';

const ACCOUNT_ID_RE = /^solana:([1-9A-HJ-NP-Za-km-z]{32}):([1-9A-HJ-NP-Za-km-z]{32,44})$/;

/** The network and address of a Solana account id on one of the three clusters, or undefined for anything else. */
export function parseSolanaAccountId(accountId: string): { network: SolanaNetwork; address: string } | undefined {
  const match = ACCOUNT_ID_RE.exec(accountId);
  if (!match || !isSolanaAddress(match[2] as string)) return undefined;
  const network = (Object.keys(SOLANA_CHAIN_REFERENCES) as SolanaNetwork[]).find(
    (name) => SOLANA_CHAIN_REFERENCES[name] === match[1],
  );
  return network ? { network, address: match[2] as string } : undefined;
}

/**
 * A Solana address written without case: the lowercase hex of its 32 bytes. Base58 is
 * case-sensitive, so where case is lost (the local part of an e-mail address) two accounts could
 * otherwise read the same; hex cannot.
 */
export const solanaAddressHex = (address: string): string => Buffer.from(base58.decode(address)).toString('hex');
