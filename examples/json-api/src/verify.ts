/**
 * POST /auth/verify, step by step (the README's processing order): the body, the message parsed
 * in its profile's grammar, the nonce spent, the domain and chain allow-lists, the times, the
 * signature; each refusal the spec's status and message.
 */
import {
  bitcoinNetworkOf,
  isSiwbError,
  parseSiwbMessage,
  type SiwbMessage,
  validateSiwbFields,
  validateSiwbTimes,
  verifyBitcoinSignature,
} from '@signet/siwb';
import {
  type ChainRegistry,
  isEoaSignatureOf,
  isSiweError,
  parseSiweMessage,
  type SiweMessage,
  validateSiweFields,
  validateSiweTimes,
  verifyContractWalletSignature,
} from '@signet/siwe';
import {
  isSiwsError,
  parseSiwsMessage,
  type SiwsMessage,
  siwsNetwork,
  validateSiwsFields,
  validateSiwsTimes,
  verifySiwsSignature,
} from '@signet/siws';
import type { Context } from 'hono';
import type { JsonApiConfig } from './config.ts';
import { HttpError } from './errors.ts';
import { FORMS, isBitcoinMessage, isSolanaMessage, MESSAGES } from './messages.ts';
import type { NonceStore } from './nonces.ts';

export type VerifyDeps = { config: JsonApiConfig; nonces: NonceStore; chains: ChainRegistry; now: () => number };

/** Step 1: both inputs present in a JSON body. */
export async function readInput(c: Context): Promise<{ message: string; signature: string }> {
  let body: { message?: unknown; signature?: unknown };
  try {
    body = await c.req.json();
  } catch (error) {
    throw new HttpError(400, MESSAGES.invalidJson, { cause: error });
  }
  const { message, signature } = body ?? {};
  if (typeof message !== 'string' || typeof signature !== 'string' || !message || !signature) {
    throw new HttpError(400, MESSAGES.missingInput);
  }
  return { message, signature };
}

/** Step 3: the nonce exists, is fresh, and is now spent (a Solana message without one: not found). */
async function consumeNonce({ nonces, now }: VerifyDeps, parsed: SiweMessage | SiwsMessage | SiwbMessage) {
  const outcome = parsed.nonce === undefined ? 'not-found' : await nonces.consume(parsed.nonce, now());
  if (outcome === 'ok') return;
  throw new HttpError(
    400,
    outcome === 'expired' ? MESSAGES.nonceExpired : outcome === 'used' ? MESSAGES.nonceUsed : MESSAGES.nonceNotFound,
  );
}

/** Step 4: the domain allow-list and the chain allow-list (CHAIN_IDS). */
function checkDomainAndChain({ config }: VerifyDeps, parsed: SiweMessage) {
  try {
    validateSiweFields(parsed, { domain: config.allowedDomains });
  } catch {
    throw new HttpError(400, MESSAGES.invalidDomain(parsed.domain));
  }
  if (!config.chainIds.includes(parsed.chainId)) throw new HttpError(400, MESSAGES.invalidChain(parsed.chainId));
}

/** Step 4 for a Solana message: the domain allow-list and the network allow-list (SOLANA_NETWORKS). */
function checkSolanaDomainAndNetwork({ config }: VerifyDeps, parsed: SiwsMessage) {
  try {
    validateSiwsFields(parsed, { domain: config.allowedDomains });
  } catch {
    throw new HttpError(400, MESSAGES.invalidDomain(parsed.domain));
  }
  const network = parsed.chainId === undefined ? undefined : siwsNetwork(parsed.chainId);
  if (network === undefined || network === 'localnet' || !config.solanaNetworks.includes(network)) {
    throw new HttpError(400, MESSAGES.invalidChain(parsed.chainId ?? 'none'));
  }
}

/** Step 4 for a Bitcoin message: the domain allow-list and the network allow-list (BITCOIN_NETWORKS). */
function checkBitcoinDomainAndNetwork({ config }: VerifyDeps, parsed: SiwbMessage) {
  try {
    validateSiwbFields(parsed, { domain: config.allowedDomains });
  } catch {
    throw new HttpError(400, MESSAGES.invalidDomain(parsed.domain));
  }
  const network = bitcoinNetworkOf(parsed.chainId);
  if (network === undefined || !config.bitcoinNetworks.includes(network))
    throw new HttpError(400, MESSAGES.invalidChain(parsed.chainId));
}

/** Steps 5-6: expiration and not-before (a message issued in the future is not yet valid either). */
function checkTimes({ now }: VerifyDeps, validate: (expect: { time: number }) => unknown) {
  try {
    validate({ time: now() });
  } catch (error) {
    if (isSiweError(error, 'EXPIRED_MESSAGE') || isSiwsError(error, 'EXPIRED_MESSAGE') || isSiwbError(error, 'EXPIRED_MESSAGE'))
      throw new HttpError(400, MESSAGES.expired);
    const type = isSiweError(error) || isSiwsError(error) || isSiwbError(error) ? error.type : 'INVALID_TIME';
    throw new HttpError(400, MESSAGES.notYetValid, { details: { type } });
  }
}

/** Step 7: the signature, offline for EOAs, EIP-1271 / EIP-6492 through ETH_RPC_URL otherwise. */
async function checkSignature({ chains }: VerifyDeps, parsed: SiweMessage, message: string, signature: string) {
  if (!isEoaSignatureOf(parsed, message, signature)) await verifyContractWalletSignature(parsed, message, signature, chains);
}

/** The spec's outer handler: invalid signature 401, expired 400, anything else 500 "Verification failed" with details. */
export function verificationError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const typed = isSiweError(error) || isSiwsError(error) || isSiwbError(error) ? error : undefined;
  if (typed?.type === 'INVALID_SIGNATURE') {
    return new HttpError(401, MESSAGES.invalidSignature, { details: { type: typed.type, message: typed.message } });
  }
  if (typed?.type === 'EXPIRED_MESSAGE') return new HttpError(400, MESSAGES.expired);
  // Details are the library's typed error; a runtime exception's text never leaves the server.
  return new HttpError(500, MESSAGES.verificationFailed, {
    cause: error,
    details: typed ? { type: typed.type, message: typed.message } : { type: 'INTERNAL_ERROR' },
  });
}

/** Steps 2-7 for an EIP-4361 message. */
async function verifyEthereum(deps: VerifyDeps, message: string, signature: string) {
  const parsed = parseSiweMessage(message, FORMS); // step 2
  await consumeNonce(deps, parsed);
  checkDomainAndChain(deps, parsed);
  checkTimes(deps, (expect) => validateSiweTimes(parsed, expect));
  await checkSignature(deps, parsed, message, signature);
  return {
    claims: { address: parsed.address, chainId: parsed.chainId, namespace: 'eip155' as const },
    user: {
      namespace: 'eip155' as const,
      address: parsed.address,
      domain: parsed.domain,
      chainId: parsed.chainId,
      issuedAt: parsed.issuedAt,
      expirationTime: parsed.expirationTime ?? null,
    },
  };
}

/** Steps 2-7 for a Sign In With Solana message, in the same order; the signature is Ed25519, offline. */
async function verifySolana(deps: VerifyDeps, message: string, signature: string) {
  const parsed = parseSiwsMessage(message, FORMS); // step 2
  await consumeNonce(deps, parsed);
  checkSolanaDomainAndNetwork(deps, parsed);
  checkTimes(deps, (expect) => validateSiwsTimes(parsed, expect));
  verifySiwsSignature({ message, signature, parse: FORMS });
  const chainId = parsed.chainId as string;
  return {
    claims: { address: parsed.address, chainId, namespace: 'solana' as const },
    user: {
      namespace: 'solana' as const,
      address: parsed.address,
      domain: parsed.domain,
      chainId,
      issuedAt: parsed.issuedAt ?? null,
      expirationTime: parsed.expirationTime ?? null,
    },
  };
}

/**
 * Steps 2-7 for a Sign in with Bitcoin message, in the same order; the signature (BIP-322 for
 * segwit and Taproot addresses, BIP-137 for P2PKH) offline. Every refusal of the signature is
 * step 7's `401 Invalid signature`, its details naming the library's type.
 */
async function verifyBitcoin(deps: VerifyDeps, message: string, signature: string) {
  const parsed = parseSiwbMessage(message, FORMS); // step 2
  await consumeNonce(deps, parsed);
  checkBitcoinDomainAndNetwork(deps, parsed);
  checkTimes(deps, (expect) => validateSiwbTimes(parsed, expect));
  try {
    verifyBitcoinSignature(parsed.address, message, signature);
  } catch (error) {
    if (!isSiwbError(error)) throw error;
    throw new HttpError(401, MESSAGES.invalidSignature, { details: { type: error.type, message: error.message } });
  }
  return {
    claims: { address: parsed.address, chainId: parsed.chainId, namespace: 'bip122' as const },
    user: {
      namespace: 'bip122' as const,
      address: parsed.address,
      domain: parsed.domain,
      chainId: parsed.chainId,
      issuedAt: parsed.issuedAt,
      expirationTime: parsed.expirationTime ?? null,
    },
  };
}

/** Steps 2-7 for the kind of message the first line names ("… with your Solana account:", "… Bitcoin …", else Ethereum). */
export function verifyAny(deps: VerifyDeps, message: string, signature: string) {
  if (isSolanaMessage(message)) return verifySolana(deps, message, signature);
  if (isBitcoinMessage(message)) return verifyBitcoin(deps, message, signature);
  return verifyEthereum(deps, message, signature);
}
