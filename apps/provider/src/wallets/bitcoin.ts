/**
 * Bitcoin account ids: CAIP-10 `bip122:<CAIP-2 reference>:<address>` (bech32 in lower case), the
 * `sub` of a Bitcoin sign-in, and a case-free form of an address for synthetic e-mail.
 */
import {
  BITCOIN_CHAIN_REFERENCES,
  type BitcoinNetwork,
  bitcoinAccountId,
  decodeBitcoinAddress,
  isBitcoinAddress,
} from '@signet/siwb/message';

const ACCOUNT_ID_RE = /^bip122:([0-9a-f]{32}):([0-9A-Za-z]{14,74})$/;

/**
 * The network and address of a Bitcoin account id on one of the four networks (in the one spelling
 * Signet writes: bech32 in lower case, the address of the reference's network), or undefined.
 */
export function parseBitcoinAccountId(accountId: string): { network: BitcoinNetwork; address: string } | undefined {
  const match = ACCOUNT_ID_RE.exec(accountId);
  if (!match) return undefined;
  const [, reference, address] = match as unknown as [string, string, string];
  const network = (Object.keys(BITCOIN_CHAIN_REFERENCES) as BitcoinNetwork[]).find(
    (name) => BITCOIN_CHAIN_REFERENCES[name] === reference,
  );
  if (network === undefined || !isBitcoinAddress(address)) return undefined;
  try {
    return bitcoinAccountId(network, address) === accountId ? { network, address } : undefined;
  } catch {
    return undefined; // an address of another network than the reference's
  }
}

/** Base58check version bytes by type and family (BIP-13, and the test networks' own). */
const BASE58_VERSION = {
  'p2pkh/mainnet': '00',
  'p2sh/mainnet': '05',
  'p2pkh/test': '6f',
  'p2sh/test': 'c4',
} as Record<string, string>;

/**
 * A Bitcoin address written without losing anything to case, for the local part of an e-mail
 * address (where case is lost): bech32 in lower case (BIP-173: one address in either case), a
 * base58 address (P2PKH `1…`/`m…`/`n…`, P2SH `3…`/`2…`, where case matters) as the lowercase hex of
 * its version byte and 20-byte hash, so that no two addresses share one: not two spellings, not
 * P2PKH and P2SH of one hash, not mainnet and the test networks. Its 42 hex characters cannot be
 * an Ethereum mailbox (`0x…`), a Solana one (64) or a bech32 one (`bc1q…`, `tb1p…`: never all hex).
 */
export function bitcoinMailbox(address: string): string {
  const decoded = decodeBitcoinAddress(address);
  if (decoded === undefined) throw new RangeError(`${JSON.stringify(address)} is not a Bitcoin address`);
  if (decoded.bech32) return address.toLowerCase();
  const version = BASE58_VERSION[`${decoded.type}/${decoded.family}`] as string;
  return version + Buffer.from(decoded.data).toString('hex');
}
