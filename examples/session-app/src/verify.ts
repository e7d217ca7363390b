/**
 * POST /api/verify { message, signature } → 200 { address, chainId }, or { error: { type, message } }:
 * 401 INVALID_SIGNATURE, 503 RPC_UNAVAILABLE, 400 otherwise. Checked in the spec's order: domain
 * (EXPECTED_DOMAIN, else the Host header) and the URI's origin (https on that domain; http too on
 * loopback), nonce (the session's; it is then cleared, so each nonce serves one attempt), the
 * signature by recovery, the message's times, and last EIP-1271/6492 on chain for contract wallets.
 */
import { randomUUID } from 'node:crypto';
import {
  isEoaSignatureOf,
  isSiweError,
  MAX_SIWE_MESSAGE_LENGTH,
  parseSiweMessage,
  SiweError,
  type SiweMessage,
  siweErrorStatus,
  validateSiweFields,
  validateSiweTimes,
  verifyContractWalletSignature,
} from '@signet/siwe';
import type { MiddlewareHandler } from 'hono';
import { expectedDomain, expectedOrigin } from './binding.ts';
import { type AppContext, type AppDeps, type Env, failure, NONCE_MAX_AGE_MS } from './context.ts';

type SignedMessage = { message: string; signature: string };

/** The body, or the error answer to give. */
async function readBody(c: AppContext): Promise<SignedMessage | Response> {
  let body: { message?: unknown; signature?: unknown };
  try {
    body = await c.req.json();
  } catch {
    return failure(c, 'INVALID_REQUEST', 'the body must be JSON: { message, signature }', 400);
  }
  const { message, signature } = body ?? {};
  if (typeof message !== 'string' || typeof signature !== 'string' || !message || !signature) {
    return failure(c, 'INVALID_REQUEST', '"message" and "signature" are required strings', 400);
  }
  if (message.length > MAX_SIWE_MESSAGE_LENGTH) {
    return failure(c, 'PAYLOAD_TOO_LARGE', `the message is longer than ${MAX_SIWE_MESSAGE_LENGTH} characters`, 413);
  }
  return { message, signature };
}

/**
 * The session's nonce, spent: cleared from the session and claimed in the server's records (the
 * record decides, not the cookie: an old cookie sent again finds the nonce spent). Throws
 * NONCE_MISMATCH when there is none, it expired, it is not the message's, or it was used.
 */
async function spendNonce(c: AppContext, deps: AppDeps, parsed: SiweMessage, spent: { fromSession: boolean }): Promise<void> {
  const session = c.get('session');
  const expected = session.nonce;
  if (expected && deps.now() - (session.nonceIssuedAt ?? 0) > NONCE_MAX_AGE_MS) {
    session.nonce = undefined;
    await session.save();
    throw new SiweError('NONCE_MISMATCH', 'the nonce expired; GET /api/nonce again');
  }
  if (!expected) throw new SiweError('NONCE_MISMATCH', 'no nonce was issued to this session; GET /api/nonce first');
  validateSiweFields(parsed, { nonce: expected });
  // Spent whatever happens next: the session is saved without it, even if this attempt fails.
  session.nonce = undefined;
  session.nonceIssuedAt = undefined;
  spent.fromSession = true;
  if (!(await deps.records.consumeNonce(expected))) {
    throw new SiweError('NONCE_MISMATCH', 'this nonce was already used; GET /api/nonce again');
  }
}

export function verifyRoute(deps: AppDeps, limit: MiddlewareHandler<Env>): void {
  deps.app.post('/api/verify', limit, async (c) => {
    const body = await readBody(c);
    if (body instanceof Response) return body;
    const { message, signature } = body;
    const spent = { fromSession: false };
    try {
      const parsed = parseSiweMessage(message);
      // 1. Domain binding (and the chain allow-list), and the URI on this site's origin.
      const domain = expectedDomain(deps.config, c.req.header('host'));
      validateSiweFields(parsed, { domain, chainIds: deps.config.chainIds, origin: expectedOrigin(domain, parsed.uri) });
      // 2. Nonce: the one this session was given; used once, whatever happens next.
      await spendNonce(c, deps, parsed, spent);
      // 3. Signature by recovery (no network); 4. times; 5. contract wallets on chain, so an
      // expired message never costs an RPC call.
      const isEoa = isEoaSignatureOf(parsed, message, signature);
      validateSiweTimes(parsed, { time: deps.now() });
      if (!isEoa) await verifyContractWalletSignature(parsed, message, signature, deps.chains);
      const session = c.get('session');
      session.address = parsed.address;
      session.chainId = parsed.chainId;
      session.sessionId = randomUUID();
      await session.save();
      return c.json({ address: parsed.address, chainId: parsed.chainId });
    } catch (error) {
      if (spent.fromSession) await c.get('session').save(); // the nonce is spent even though this attempt failed
      if (!isSiweError(error)) throw error;
      return failure(c, error.type, error.message, siweErrorStatus(error.type));
    }
  });
}
