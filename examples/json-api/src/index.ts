export { BODY_LIMIT_BYTES, buildJsonApi, type JsonApiOptions, MESSAGES, RATE_LIMIT } from './app.ts';
export { type JsonApiConfig, loadJsonApiConfig, localDevelopmentDomains, SettingsError } from './config.ts';
export { HttpError } from './errors.ts';
export { createTokens, TOKEN_LIFETIME_SECONDS, type TokenClaims, validateAddress } from './helpers.ts';
export {
  type ConsumeResult,
  createMemoryNonceStore,
  createRedisNonceStore,
  NONCE_CLEANUP_INTERVAL_MS,
  NONCE_MAX_AGE_MS,
  type NonceStats,
  type NonceStore,
} from './nonces.ts';
export { enhancedVerifierFor } from './verifier.ts';
