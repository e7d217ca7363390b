/**
 * The spec's "enhanced verifier configuration" (enhanced.ts): maxMessageAge 10 minutes,
 * allowedDomains (this API's allow-list), allowedChainIds [1, 5], requireStatement false,
 * optional required address and chain id.
 */
import type { ChainRegistry } from '@signet/siwe';
import type { JsonApiConfig } from './config.ts';
import { createEnhancedVerifier, ENHANCED_VERIFIER_DEFAULTS, type EnhancedVerifierConfig } from './enhanced.ts';

export function enhancedVerifierFor(config: JsonApiConfig, chains?: ChainRegistry, overrides: EnhancedVerifierConfig = {}) {
  return createEnhancedVerifier({
    ...ENHANCED_VERIFIER_DEFAULTS,
    allowedDomains: config.allowedDomains,
    client: chains,
    ...overrides,
  });
}
