/**
 * Sign In With Solana in CAIP-122's namespace slot (`@signet/siwe/caip122`): the first line names
 * a Solana account, the address is a 32-byte base58 Ed25519 key, the Chain ID one SIWS defines,
 * and every field but domain and address is optional. The shared parser and writer do the rest.
 */
import { type Caip122Namespace, quote } from '@signet/siwe/caip122';
import { SiwsError, type SiwsErrorType } from './errors.ts';
import { decodeSolanaAddress } from './isSolanaAddress.ts';
import { SIWS_CHAIN_IDS, SOLANA_CHAIN_REFERENCES, SOLANA_NETWORKS } from './networks.ts';

const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]*$/;

export const SOLANA_NAMESPACE: Caip122Namespace<SiwsErrorType> = {
  namespace: 'solana',
  kind: 'Solana',
  name: 'SIWS',
  order: 'the SIWS ABNF',
  required: [],
  Failure: SiwsError,
  addressProblem(v) {
    if (decodeSolanaAddress(v) !== undefined) return undefined;
    if (v === '' || !BASE58_RE.test(v)) return `address ${quote(v)} is not base58`;
    return `address ${quote(v)} is not 32 bytes of base58 (a Solana address is an Ed25519 public key)`;
  },
  chainIdProblem: (v) =>
    (SIWS_CHAIN_IDS as readonly string[]).includes(v)
      ? undefined
      : `Chain ID ${quote(v)} is not a Solana cluster (one of ${SIWS_CHAIN_IDS.join(', ')})`,
  // A genesis-hash reference (CAIP-2's, and what Reown AppKit writes) names its cluster by the name Signet writes.
  chainOfReference: (reference) => SOLANA_NETWORKS.find((network) => SOLANA_CHAIN_REFERENCES[network] === reference),
};
