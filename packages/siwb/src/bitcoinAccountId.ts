import { decodeBitcoinAddress } from './decodeBitcoinAddress.ts';
import { ADDRESS_FAMILY, BITCOIN_CHAIN_REFERENCES, type BitcoinNetwork } from './networks.ts';

export type BitcoinChainId = `bip122:${string}`;
export type BitcoinAccountId = `bip122:${string}:${string}`;

/** The CAIP-2 chain id of a network: `bip122:000000000019d6689c085ae165831e93` for mainnet. */
export function bitcoinChainId(network: BitcoinNetwork): BitcoinChainId {
  const reference = Object.hasOwn(BITCOIN_CHAIN_REFERENCES, network) ? BITCOIN_CHAIN_REFERENCES[network] : undefined;
  if (reference === undefined)
    throw new RangeError(`${JSON.stringify(network)} is not a Bitcoin network with a CAIP-2 reference`);
  return `bip122:${reference}`;
}

/**
 * One spelling per address: bech32 / bech32m addresses in lower case (BIP-173 allows all upper
 * case too, and the two are the same address); base58 addresses as they are (base58 is
 * case-sensitive). Throws RangeError for what is not a Bitcoin address.
 */
export function normalizeBitcoinAddress(address: string): string {
  const decoded = decodeBitcoinAddress(address);
  if (decoded === undefined) throw new RangeError(`${JSON.stringify(address)} is not a Bitcoin address`);
  return decoded.bech32 ? address.toLowerCase() : address;
}

/**
 * The CAIP-10 account id of an address on a network, `bip122:<CAIP-2 reference>:<address>`
 * (bech32 in lower case): Signet's subject for a Bitcoin sign-in. Throws RangeError for an
 * address that is not one of that network's (a test address on mainnet, say).
 */
export function bitcoinAccountId(network: BitcoinNetwork, address: string): BitcoinAccountId {
  const chainId = bitcoinChainId(network);
  const decoded = decodeBitcoinAddress(address);
  if (decoded === undefined) throw new RangeError(`${JSON.stringify(address)} is not a Bitcoin address`);
  if (decoded.family !== ADDRESS_FAMILY[network]) {
    throw new RangeError(
      `${address} is ${decoded.family === 'mainnet' ? 'a mainnet' : 'a test-network'} address, not one of ${network}`,
    );
  }
  return `${chainId}:${decoded.bech32 ? address.toLowerCase() : address}`;
}
