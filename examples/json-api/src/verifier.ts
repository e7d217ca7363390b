/**
 * The spec's "enhanced verifier configuration", from the library: maxMessageAge 10 minutes,
 * allowedDomains (this API's allow-list), allowedChainIds [1, 5], requireStatement false,
 * optional required address and chain id.
 */
import {
  type ChainRegistry,
  createEnhancedVerifier,
  ENHANCED_VERIFIER_DEFAULTS,
  type EnhancedVerifierConfig,
} from '@signet/siwe';
import type { JsonApiConfig } from './config.ts';

export function enhancedVerifierFor(config: JsonApiConfig, chains?: ChainRegistry, overrides: EnhancedVerifierConfig = {}) {
  return createEnhancedVerifier({
    ...ENHANCED_VERIFIER_DEFAULTS,
    allowedDomains: config.allowedDomains,
    client: chains,
    ...overrides,
  });
}
