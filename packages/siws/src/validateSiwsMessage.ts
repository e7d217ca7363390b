import {
  type BindingExpectations,
  checkDomain,
  checkFirstResource,
  checkNonce,
  checkTimeWindow,
  checkUri,
  type TimeWindowExpectations,
} from '@signet/siwe/caip122';
import { SiwsError, type SiwsField } from './errors.ts';
import type { SolanaNetwork } from './networks.ts';
import { siwsNetwork } from './siwsNetwork.ts';
import type { SiwsMessage } from './types.ts';

/**
 * What a verifier expects of a message. Every field is optional; absent means "not checked".
 * An expectation about a field the message leaves out fails with `MISSING_FIELD` (in SIWS
 * every field but domain and address is optional).
 */
export type SiwsExpectations = BindingExpectations &
  TimeWindowExpectations & {
    /** Clusters the message's Chain ID may name (`solana:mainnet` counts as `mainnet`; `localnet` never matches). */
    networks?: readonly SolanaNetwork[];
    /** The address required (base58, exact). */
    address?: string;
    /** A statement must be present. */
    requireStatement?: boolean;
  };

const LABELS: Partial<Record<SiwsField, string>> = {
  uri: 'URI',
  chainId: 'Chain ID',
  nonce: 'Nonce',
  issuedAt: 'Issued At',
  resources: 'Resources',
  statement: 'statement',
};

function present<K extends keyof SiwsMessage>(message: SiwsMessage, field: K, why: string): NonNullable<SiwsMessage[K]> {
  const value = message[field];
  if (value === undefined) {
    throw new SiwsError('MISSING_FIELD', `the message has no ${LABELS[field as SiwsField] ?? field}, which ${why}`, {
      field: field as SiwsField,
    });
  }
  return value as NonNullable<SiwsMessage[K]>;
}

/**
 * Checks a parsed message against what the verifier expects, in the order `@signet/siwe`
 * uses: domain, URI, nonce, network allow-list, times (issued at, age, expiry, not before),
 * statement, address, first resource. Returns the message when all pass; otherwise throws the
 * first failure as a `SiwsError`.
 */
export function validateSiwsMessage(message: SiwsMessage, expect: SiwsExpectations = {}): SiwsMessage {
  checkBinding(message, expect);
  validateSiwsTimes(message, expect);
  checkAccount(message, expect);
  return message;
}

/** Every check of validateSiwsMessage except the times. */
export function validateSiwsFields(message: SiwsMessage, expect: SiwsExpectations = {}): SiwsMessage {
  checkBinding(message, expect);
  checkAccount(message, expect);
  return message;
}

/**
 * Only the time checks: issuedAt not ahead (skew) nor too old, expirationTime ahead, notBefore
 * passed. A message without Issued At fails `MISSING_FIELD` when `maxAge` or `notIssuedBefore`
 * bounds its age; absent times are otherwise not checked.
 */
export function validateSiwsTimes(message: SiwsMessage, expect: TimeWindowExpectations = {}): SiwsMessage {
  if (expect.maxAge !== undefined || expect.notIssuedBefore !== undefined) {
    present(message, 'issuedAt', 'the verifier needs to bound the message’s age');
  }
  return checkTimeWindow(message, expect, SiwsError);
}

/** Domain, URI, nonce and network allow-list. */
function checkBinding(message: SiwsMessage, expect: SiwsExpectations) {
  checkDomain(message, expect, SiwsError);
  if (expect.uri !== undefined || expect.origin !== undefined) {
    checkUri({ uri: present(message, 'uri', 'must name the expected URI') }, expect, SiwsError);
  }
  if (expect.nonce !== undefined) {
    checkNonce({ nonce: present(message, 'nonce', 'must carry the nonce issued for this sign-in') }, expect, SiwsError);
  }
  if (expect.networks !== undefined) {
    const chainId = present(message, 'chainId', `must name one of the allowed networks (${expect.networks.join(', ')})`);
    const network = siwsNetwork(chainId);
    if (!(expect.networks as readonly string[]).includes(network)) {
      throw new SiwsError(
        'CHAIN_NOT_ALLOWED',
        `network ${chainId} is not allowed (allowed: ${expect.networks.length > 0 ? expect.networks.join(', ') : 'none'})`,
        { field: 'chainId', expected: expect.networks, received: chainId },
      );
    }
  }
}

/** Statement, address and first resource. */
function checkAccount(message: SiwsMessage, expect: SiwsExpectations) {
  if (expect.requireStatement) present(message, 'statement', 'is required');
  if (expect.address !== undefined && message.address !== expect.address) {
    throw new SiwsError('ADDRESS_MISMATCH', `address ${message.address} is not the required ${expect.address}`, {
      field: 'address',
      expected: expect.address,
      received: message.address,
    });
  }
  if (expect.resource !== undefined) {
    present(message, 'resources', `must list ${expect.resource} first`);
    checkFirstResource(message, expect, SiwsError);
  }
}
