/**
 * Application B: a stateless JSON API that verifies Sign-In with Ethereum messages, Sign In With
 * Solana ones when SOLANA_NETWORKS names a cluster, and Sign in with Bitcoin ones when
 * BITCOIN_NETWORKS names a network; its README lists its routes, processing order, messages and
 * status codes.
 */
import { clientIp, rateLimit } from '@signet/hono-kit';
import { createRateLimiter } from '@signet/ratelimit';
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
  createChainRegistry,
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
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { JsonApiConfig } from './config.ts';
import { HttpError } from './errors.ts';
import { createTokens } from './helpers.ts';
import { createMemoryNonceStore, type NonceStore } from './nonces.ts';

export const MESSAGES = {
  routeNotFound: 'Route not found',
  nonceFailed: 'Failed to generate nonce',
  internal: 'Internal server error',
  missingInput: 'Message and signature are required',
  invalidJson: 'Request body must be valid JSON',
  tooLarge: 'Request body is too large (limit 10 MB)',
  nonceExpired: 'Invalid nonce: expired',
  nonceUsed: 'Invalid nonce: already used',
  nonceNotFound: 'Invalid nonce: not found',
  invalidDomain: (domain: string) => `Invalid domain: ${domain}`,
  invalidChain: (chainId: number | string) => `Invalid chain ID: ${chainId}`,
  expired: 'Message has expired',
  notYetValid: 'Message is not yet valid',
  invalidSignature: 'Invalid signature',
  verificationFailed: 'Verification failed',
  rateLimited: 'Too many requests from this IP, please try again later.',
  authenticated: 'Authentication successful',
  loggedOut: 'Logged out successfully',
  healthy: 'SIWE backend is running',
} as const;

/**
 * `Chain ID:` is read in each profile's own form and also as the whole CAIP-2 id of a chain
 * (`eip155:1`, `solana:5eykt…` or its bare genesis hash, `bip122:000…`), as Reown AppKit's SIWX
 * writes them: a front end built with AppKit signs in here unchanged (README, "Messages").
 */
const FORMS = { acceptCaip2ChainId: true } as const;

const SOLANA_FIRST_LINE = ' wants you to sign in with your Solana account:';
const isSolanaMessage = (message: string) => message.split('\n', 1)[0]?.endsWith(SOLANA_FIRST_LINE) === true;
const BITCOIN_FIRST_LINE = ' wants you to sign in with your Bitcoin account:';
const isBitcoinMessage = (message: string) => message.split('\n', 1)[0]?.endsWith(BITCOIN_FIRST_LINE) === true;

/** The 15-minute window of 100 requests per client address. */
export const RATE_LIMIT = { limit: 100, windowSeconds: 15 * 60 };
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export type JsonApiOptions = {
  now?: () => number;
  nonces?: NonceStore;
  chains?: ChainRegistry;
};

type Envelope = { success: false; error: { message: string; details?: unknown; stack?: string } };

export function buildJsonApi(config: JsonApiConfig, options: JsonApiOptions = {}) {
  const now = options.now ?? Date.now;
  const nonces = options.nonces ?? createMemoryNonceStore();
  const chains = options.chains ?? createChainRegistry(config.rpcUrls, { signatureVerifiers: config.signatureVerifiers });
  const development = config.environment === 'development';
  const tokens = createTokens({ secret: config.tokenSecret, now });
  const app = new Hono();

  const envelope = (message: string, details?: unknown, stack?: string): Envelope => ({
    success: false,
    error: {
      message,
      ...(details === undefined ? {} : { details }),
      ...(development && stack ? { stack } : {}),
    },
  });

  app.use(secureHeaders());
  app.use(
    cors({
      origin: (origin) => (config.frontendOrigins.includes(origin) ? origin : null),
      credentials: true,
    }),
  );
  app.use(
    rateLimit({
      limiter: createRateLimiter({ ...RATE_LIMIT, now }),
      trustProxy: config.trustProxy,
      onLimited: (c) => c.json(envelope(MESSAGES.rateLimited), 429),
    }),
  );
  app.use(
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: (c) => c.json(envelope(MESSAGES.tooLarge), 413),
    }),
  );

  app.get('/health', (c) => c.json({ status: 'OK', timestamp: new Date(now()).toISOString(), message: MESSAGES.healthy }));

  app.get('/auth/nonce', async (c) => {
    try {
      return c.json({ success: true, nonce: await nonces.create(now()) });
    } catch (error) {
      throw new HttpError(500, MESSAGES.nonceFailed, { cause: error });
    }
  });

  /** Step 1: both inputs present in a JSON body. */
  async function readInput(c: Context): Promise<{ message: string; signature: string }> {
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
  async function consumeNonce(parsed: SiweMessage | SiwsMessage | SiwbMessage) {
    const outcome = parsed.nonce === undefined ? 'not-found' : await nonces.consume(parsed.nonce, now());
    if (outcome === 'ok') return;
    throw new HttpError(
      400,
      outcome === 'expired' ? MESSAGES.nonceExpired : outcome === 'used' ? MESSAGES.nonceUsed : MESSAGES.nonceNotFound,
    );
  }

  /** Step 4: the domain allow-list and the chain allow-list (CHAIN_IDS). */
  function checkDomainAndChain(parsed: SiweMessage) {
    try {
      validateSiweFields(parsed, { domain: config.allowedDomains });
    } catch {
      throw new HttpError(400, MESSAGES.invalidDomain(parsed.domain));
    }
    if (!config.chainIds.includes(parsed.chainId)) throw new HttpError(400, MESSAGES.invalidChain(parsed.chainId));
  }

  /** Step 4 for a Solana message: the domain allow-list and the network allow-list (SOLANA_NETWORKS). */
  function checkSolanaDomainAndNetwork(parsed: SiwsMessage) {
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
  function checkBitcoinDomainAndNetwork(parsed: SiwbMessage) {
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
  function checkTimes(validate: (expect: { time: number }) => unknown) {
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
  async function checkSignature(parsed: SiweMessage, message: string, signature: string) {
    if (!isEoaSignatureOf(parsed, message, signature)) await verifyContractWalletSignature(parsed, message, signature, chains);
  }

  /** The spec's outer handler: invalid signature 401, expired 400, anything else 500 "Verification failed" with details. */
  function verificationError(error: unknown): HttpError {
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
  async function verifyEthereum(message: string, signature: string) {
    const parsed = parseSiweMessage(message, FORMS); // step 2
    await consumeNonce(parsed);
    checkDomainAndChain(parsed);
    checkTimes((expect) => validateSiweTimes(parsed, expect));
    await checkSignature(parsed, message, signature);
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
  async function verifySolana(message: string, signature: string) {
    const parsed = parseSiwsMessage(message, FORMS); // step 2
    await consumeNonce(parsed);
    checkSolanaDomainAndNetwork(parsed);
    checkTimes((expect) => validateSiwsTimes(parsed, expect));
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
  async function verifyBitcoin(message: string, signature: string) {
    const parsed = parseSiwbMessage(message, FORMS); // step 2
    await consumeNonce(parsed);
    checkBitcoinDomainAndNetwork(parsed);
    checkTimes((expect) => validateSiwbTimes(parsed, expect));
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

  app.post('/auth/verify', async (c) => {
    const { message, signature } = await readInput(c);
    try {
      // The first line names the kind of account: "… with your Solana account:" is Sign In With
      // Solana, "… with your Bitcoin account:" Sign in with Bitcoin.
      const { claims, user } = isSolanaMessage(message)
        ? await verifySolana(message, signature)
        : isBitcoinMessage(message)
          ? await verifyBitcoin(message, signature)
          : await verifyEthereum(message, signature);
      return c.json({ success: true, token: await tokens.issue(claims), user, message: MESSAGES.authenticated });
    } catch (error) {
      throw verificationError(error);
    }
  });

  // The signed-in user of a token /auth/verify returned (requireAuth in use).
  app.get('/auth/me', tokens.requireAuth, (c) => c.json({ success: true, user: c.get('auth') }));

  // Stateless: the client forgets its sign-in (and its token, which expires within the hour).
  app.post('/auth/logout', (c) => c.json({ success: true, message: MESSAGES.loggedOut }));

  app.get('/auth/stats', async (c) => {
    if (config.environment === 'production') return c.json(envelope(MESSAGES.routeNotFound), 404);
    return c.json({ success: true, stats: await nonces.stats(now()) });
  });

  app.notFound((c) => c.json(envelope(MESSAGES.routeNotFound), 404));

  app.onError((error, c: Context) => {
    // The spec's global handler: the error's status (else 500) and message (else the generic one).
    const status = error instanceof HttpError ? error.status : 500;
    const message = (error instanceof HttpError && error.message) || MESSAGES.internal;
    if (status >= 500) console.error({ path: c.req.path, ip: clientIp(c, config.trustProxy) }, error);
    return c.json(envelope(message, error instanceof HttpError ? error.details : undefined, error.stack), status as 400);
  });

  let timer: NodeJS.Timeout | undefined;
  return {
    app,
    nonces,
    /** Removes nonces older than 10 minutes every 5 minutes (the spec's cleanup). */
    startCleanup(intervalMs = 5 * 60_000) {
      timer ??= setInterval(() => {
        nonces.cleanup(now()).catch((error) => console.error('nonce cleanup failed', error));
      }, intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      await nonces.close();
    },
  };
}
