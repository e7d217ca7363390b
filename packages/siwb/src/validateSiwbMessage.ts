import {
  type BindingExpectations,
  checkDomain,
  checkFirstResource,
  checkNonce,
  checkTimeWindow,
  checkUri,
  type TimeWindowExpectations,
} from '@signet/siwe/caip122';
import { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
import { decodeBitcoinAddress } from './decodeBitcoinAddress.ts';
import { SiwbError } from './errors.ts';
import type { BitcoinNetwork } from './networks.ts';
import type { SiwbMessage } from './types.ts';

/**
 * What a verifier expects of a message. Every field is optional; absent means "not checked".
 * `domain`, `uri`, `origin`, `nonce` and `resource` (`resources[0]`) bind the message to the
 * request; `time`, `maxAge`, `notIssuedBefore` and `clockSkew` bound its times.
 */
export type SiwbExpectations = BindingExpectations &
  TimeWindowExpectations & {
    /** Networks the message's Chain ID may name. */
    networks?: readonly BitcoinNetwork[];
    /** The address required (bech32 compared in any case, base58 exactly). */
    address?: string;
    /** A statement must be present. */
    requireStatement?: boolean;
  };

/**
 * Checks a parsed message against what the verifier expects, in the order `@signet/siwe` and
 * `@signet/siws` use: domain, URI, nonce, network allow-list, times (issued at, age, expiry, not
 * before), statement, address, first resource. Returns the message when all pass; otherwise
 * throws the first failure as a `SiwbError`.
 */
export function validateSiwbMessage(message: SiwbMessage, expect: SiwbExpectations = {}): SiwbMessage {
  checkBinding(message, expect);
  validateSiwbTimes(message, expect);
  checkAccount(message, expect);
  return message;
}

/** Every check of validateSiwbMessage except the times. */
export function validateSiwbFields(message: SiwbMessage, expect: SiwbExpectations = {}): SiwbMessage {
  checkBinding(message, expect);
  checkAccount(message, expect);
  return message;
}

/** Only the time checks: issuedAt not ahead (skew) nor too old, expirationTime ahead, notBefore passed. */
export function validateSiwbTimes(message: SiwbMessage, expect: TimeWindowExpectations = {}): SiwbMessage {
  return checkTimeWindow(message, expect, SiwbError);
}

/** Domain, URI, nonce and network allow-list. */
function checkBinding(message: SiwbMessage, expect: SiwbExpectations) {
  checkDomain(message, expect, SiwbError);
  checkUri(message, expect, SiwbError);
  checkNonce(message, expect, SiwbError);
  if (expect.networks !== undefined) {
    const network = bitcoinNetworkOf(message.chainId);
    if (network === undefined || !expect.networks.includes(network)) {
      throw new SiwbError(
        'CHAIN_NOT_ALLOWED',
        `network ${network ?? message.chainId} is not allowed (allowed: ${expect.networks.length > 0 ? expect.networks.join(', ') : 'none'})`,
        { field: 'chainId', expected: expect.networks, received: message.chainId },
      );
    }
  }
}

/** The same address, bech32 in any case (BIP-173: an address is all lower or all upper case, and both spell one address). */
function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const decoded = decodeBitcoinAddress(a);
  return decoded?.bech32 === true && a.toLowerCase() === b.toLowerCase();
}

/** Statement, address and first resource. */
function checkAccount(message: SiwbMessage, expect: SiwbExpectations) {
  if (expect.requireStatement && message.statement === undefined) {
    throw new SiwbError('INVALID_STATEMENT', 'a statement is required', { field: 'statement' });
  }
  if (expect.address !== undefined && !sameAddress(message.address, expect.address)) {
    throw new SiwbError('ADDRESS_MISMATCH', `address ${message.address} is not the required ${expect.address}`, {
      field: 'address',
      expected: expect.address,
      received: message.address,
    });
  }
  checkFirstResource(message, expect, SiwbError);
}
