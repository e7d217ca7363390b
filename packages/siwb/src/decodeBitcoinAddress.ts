import { sha256 } from '@noble/hashes/sha2.js';
import { base58check, bech32, bech32m } from '@scure/base';
import type { AddressFamily } from './networks.ts';

/** The address types a Bitcoin address encodes (`witness` = a witness version or program this package does not know). */
export type BitcoinAddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness';

/** The address types that can sign in (P2SH only as P2SH-P2WPKH, which only the signature tells). */
export const SIGN_IN_ADDRESS_TYPES = ['p2pkh', 'p2sh', 'p2wpkh', 'p2tr'] as const;
export type SignInAddressType = (typeof SIGN_IN_ADDRESS_TYPES)[number];

export type DecodedBitcoinAddress = {
  type: BitcoinAddressType;
  /** `mainnet`, or `test` for testnet3, testnet4 and signet (which share their encodings). */
  family: AddressFamily;
  /** bech32 or bech32m (segwit) rather than base58check. */
  bech32: boolean;
  /** The witness version (segwit addresses only). */
  witnessVersion?: number;
  /** The hash (P2PKH, P2SH: 20 bytes), witness program (P2WPKH 20, P2WSH 32 bytes) or Taproot output key (32 bytes). */
  data: Uint8Array;
};

const BASE58CHECK = base58check(sha256);
/** Base58check version bytes: pubKeyHash and scriptHash of mainnet, then of the test networks. */
const BASE58_VERSIONS: Record<number, Pick<DecodedBitcoinAddress, 'type' | 'family'>> = {
  0: { type: 'p2pkh', family: 'mainnet' },
  5: { type: 'p2sh', family: 'mainnet' },
  111: { type: 'p2pkh', family: 'test' },
  196: { type: 'p2sh', family: 'test' },
};
const HRP_FAMILY: Record<string, AddressFamily> = { bc: 'mainnet', tb: 'test' };

/**
 * Reads an address by BIP-173 (bech32, witness version 0), BIP-350 (bech32m, versions 1–16)
 * and base58check (P2PKH, P2SH) with @scure/base's codecs, by the rules of @scure/btc-signer's
 * `Address().decode` (a property test holds the two to the same answers). Kept apart from
 * btc-signer so the browser entry stays small: btc-signer brings the whole secp256k1 curve.
 * Returns the address, or why it is not one.
 */
export function readBitcoinAddress(address: string): DecodedBitcoinAddress | string {
  if (typeof address !== 'string') return 'an address must be a string';
  if (address.length < 14 || address.length > 74) return 'a Bitcoin address has 14 to 74 characters';
  const lower = address.toLowerCase();
  const hrp = lower.startsWith('bc1') ? 'bc' : lower.startsWith('tb1') ? 'tb' : undefined;
  if (hrp !== undefined) return readSegwit(address, hrp);
  let bytes: Uint8Array;
  try {
    bytes = BASE58CHECK.decode(address);
  } catch {
    return 'not a bech32 address (bc1…, tb1…) nor base58check with a valid checksum';
  }
  const kind = bytes.length === 21 ? BASE58_VERSIONS[bytes[0] as number] : undefined;
  if (kind === undefined) return 'a base58check address of another kind (not P2PKH nor P2SH of Bitcoin or its test networks)';
  return { ...kind, bech32: false, data: bytes.slice(1) };
}

function readSegwit(address: string, hrp: string): DecodedBitcoinAddress | string {
  let decoded: { prefix: string; words: number[] };
  try {
    // Witness version 0 is bech32; later versions are bech32m (BIP-350): each only in its own.
    decoded = bech32.decode(address as `${string}1${string}`);
    if (decoded.words[0] !== 0) return 'a segwit address of version 1 or later must be bech32m (BIP-350)';
  } catch {
    try {
      decoded = bech32m.decode(address as `${string}1${string}`);
    } catch {
      return 'not a valid bech32 / bech32m address (checksum, characters, or mixed case)';
    }
    if (decoded.words[0] === 0) return 'a segwit version 0 address must be bech32 (BIP-173), not bech32m';
  }
  // bech32 splits at the last "1": "bc1…1…" has another prefix than "bc".
  if (decoded.prefix !== hrp) return `a bech32 prefix ${JSON.stringify(decoded.prefix)} (expected "bc" or "tb")`;
  const [version, ...words] = decoded.words as [number, ...number[]];
  let data: Uint8Array;
  try {
    data = bech32.fromWords(words);
  } catch {
    return 'a witness program with invalid padding';
  }
  if (version > 16) return `witness version ${version} does not exist`;
  if (data.length < 2 || data.length > 40) return `a witness program of ${data.length} bytes (2 to 40 allowed)`;
  if (version === 0 && data.length !== 20 && data.length !== 32) {
    return `a version 0 witness program of ${data.length} bytes (20 or 32 allowed)`;
  }
  const type: BitcoinAddressType =
    version === 0 ? (data.length === 20 ? 'p2wpkh' : 'p2wsh') : version === 1 && data.length === 32 ? 'p2tr' : 'witness';
  return { type, family: HRP_FAMILY[hrp] as AddressFamily, bech32: true, witnessVersion: version, data };
}

/**
 * The address a string encodes (P2PKH, P2SH, any segwit version; bech32 in either case), with
 * its type and network family; undefined when it is not a Bitcoin address of mainnet or the
 * test networks.
 */
export function decodeBitcoinAddress(address: string): DecodedBitcoinAddress | undefined {
  const decoded = readBitcoinAddress(address);
  return typeof decoded === 'string' ? undefined : decoded;
}

/**
 * Whether `address` can be a SIWB message's address: a valid P2PKH, P2SH, P2WPKH or P2TR
 * address, bech32 written in lower case.
 */
export function isBitcoinAddress(address: string): boolean {
  const decoded = decodeBitcoinAddress(address);
  return (
    decoded !== undefined &&
    (SIGN_IN_ADDRESS_TYPES as readonly string[]).includes(decoded.type) &&
    (!decoded.bech32 || address === address.toLowerCase())
  );
}
