/**
 * Sign in with Bitcoin in CAIP-122's namespace slot (`@signet/siwe/caip122`): the first line names
 * a Bitcoin account, the address is one that can sign in (P2PKH, P2SH-P2WPKH, P2WPKH, P2TR;
 * bech32 in lower case) and of the network its Chain ID names, the Chain ID a network's CAIP-2
 * reference, and URI, Version, Chain ID, Nonce and Issued At are required, as in EIP-4361.
 */
import { type Caip122Namespace, type FieldProblem, quote } from '@signet/siwe/caip122';
import { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
import { readBitcoinAddress } from './decodeBitcoinAddress.ts';
import { SiwbError, type SiwbErrorType } from './errors.ts';
import { ADDRESS_FAMILY, BITCOIN_CHAIN_REFERENCES, BITCOIN_NETWORKS } from './networks.ts';

const REFERENCES = BITCOIN_NETWORKS.map((network) => `${BITCOIN_CHAIN_REFERENCES[network]} (${network})`).join(', ');

function addressProblem(v: string): FieldProblem<SiwbErrorType> {
  const decoded = readBitcoinAddress(v);
  if (typeof decoded === 'string') return `address ${quote(v)} is not a Bitcoin address: ${decoded}`;
  if (decoded.bech32 && v !== v.toLowerCase()) {
    return `address ${quote(v)} must be written in lower case (${v.toLowerCase()}): one spelling per account`;
  }
  if (decoded.type === 'p2wsh') {
    return { type: 'UNSUPPORTED_ADDRESS_TYPE', text: `address ${v} is P2WSH (a script), which cannot sign in here` };
  }
  if (decoded.type === 'witness') {
    return {
      type: 'UNSUPPORTED_ADDRESS_TYPE',
      text: `address ${v} is a witness version ${decoded.witnessVersion} program of ${decoded.data.length} bytes, which cannot sign in here (P2PKH, P2SH-P2WPKH, P2WPKH and P2TR can)`,
    };
  }
  return undefined;
}

function chainIdProblem(v: string): string | undefined {
  if (bitcoinNetworkOf(v) !== undefined && !v.startsWith('bip122:')) return undefined;
  if (v.startsWith('bip122:')) return `Chain ID ${quote(v)}: write the CAIP-2 reference alone, without "bip122:"`;
  if (bitcoinNetworkOf(v.toLowerCase()) !== undefined) return `Chain ID ${quote(v)} must be lower-case hex`;
  return `Chain ID ${quote(v)} is not the CAIP-2 reference of a Bitcoin network (one of ${REFERENCES})`;
}

/**
 * Checks that a (valid) address is one of the (valid) Chain ID's network: mainnet's own, or
 * the test encodings that testnet3, testnet4 and signet share. Throws `NETWORK_MISMATCH`.
 */
export function checkAddressNetwork(address: string, chainId: string, line?: number): void {
  const network = bitcoinNetworkOf(chainId);
  const decoded = readBitcoinAddress(address);
  if (network === undefined || typeof decoded === 'string' || decoded.family === ADDRESS_FAMILY[network]) return;
  const text = `address ${address} is ${decoded.family === 'mainnet' ? 'a mainnet' : 'a test-network'} address, but the Chain ID names ${network}`;
  throw new SiwbError('NETWORK_MISMATCH', line === undefined ? text : `line ${line}: ${text}`, {
    field: 'address',
    line,
    expected: network,
    received: address,
  });
}

export const BITCOIN_NAMESPACE: Caip122Namespace<SiwbErrorType> = {
  namespace: 'bip122',
  kind: 'Bitcoin',
  name: 'SIWB',
  order: 'EIP-4361 and CAIP-122',
  required: ['uri', 'version', 'chainId', 'nonce', 'issuedAt'],
  Failure: SiwbError,
  addressProblem,
  chainIdProblem,
  chainOfReference: (reference) =>
    BITCOIN_NETWORKS.map((network) => BITCOIN_CHAIN_REFERENCES[network]).find((r) => r === reference),
  checkAddressOnChain: checkAddressNetwork,
};
