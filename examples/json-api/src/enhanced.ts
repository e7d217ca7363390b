import { type SiweVerificationClient, type VerifySiweSignatureReturnType, verifySiwe } from '@signet/siwe';

/** The "enhanced verifier" configuration of the example backends, with its defaults. */
export type EnhancedVerifierConfig = {
  /** Oldest acceptable issuedAt, in ms (default 10 minutes). */
  maxMessageAge?: number;
  /** Domains (host:port) a message may be for (default `localhost:3000`). */
  allowedDomains?: readonly string[];
  /** Chains a message may name (default 1 and 5). */
  allowedChainIds?: readonly number[];
  /** Require a statement (default false). */
  requireStatement?: boolean;
  /** Only this address may sign in (case-insensitive). */
  requiredAddress?: string;
  /** Only this chain is accepted. */
  requiredChainId?: number;
  /** Allowed clock difference for issuedAt/notBefore, in ms (default 60 s). */
  clockSkew?: number;
  /** For contract wallets (EIP-1271 / EIP-6492). */
  client?: SiweVerificationClient;
};

export const ENHANCED_VERIFIER_DEFAULTS = {
  maxMessageAge: 10 * 60 * 1000,
  allowedDomains: ['localhost:3000'],
  allowedChainIds: [1, 5],
  requireStatement: false,
} as const;

export type EnhancedVerifyParameters = {
  message: string;
  signature: string;
  /** The nonce this server issued, when it checks it here (stores may check it separately). */
  nonce?: string;
  /** "Now", injected by tests. */
  time?: number | Date;
};

export type EnhancedVerifier = (parameters: EnhancedVerifyParameters) => Promise<VerifySiweSignatureReturnType>;

/**
 * Builds a verifier with the configuration checked once, here: domain allow-list, chain
 * allow-list, message age (too old or issued in the future), expiry, not-before, statement,
 * required address and chain, then the signature.
 */
export function createEnhancedVerifier(config: EnhancedVerifierConfig = {}): EnhancedVerifier {
  const maxAge = config.maxMessageAge ?? ENHANCED_VERIFIER_DEFAULTS.maxMessageAge;
  const domains = [...(config.allowedDomains ?? ENHANCED_VERIFIER_DEFAULTS.allowedDomains)];
  const chainIds = [...(config.allowedChainIds ?? ENHANCED_VERIFIER_DEFAULTS.allowedChainIds)];
  if (!Number.isFinite(maxAge) || maxAge <= 0) throw new TypeError('maxMessageAge must be a positive number of ms');
  if (domains.length === 0) throw new TypeError('allowedDomains must list at least one domain');
  if (chainIds.length === 0 || !chainIds.every((id) => Number.isSafeInteger(id) && id > 0)) {
    throw new TypeError('allowedChainIds must list positive integer chain ids');
  }
  const settings = Object.freeze({
    domain: domains,
    chainIds,
    maxAge,
    requireStatement: config.requireStatement ?? ENHANCED_VERIFIER_DEFAULTS.requireStatement,
    address: config.requiredAddress,
    chainId: config.requiredChainId,
    clockSkew: config.clockSkew,
  });
  return ({ message, signature, nonce, time }) =>
    verifySiwe({ message, signature, client: config.client, expect: { ...settings, nonce, time } });
}
