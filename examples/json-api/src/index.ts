export { BODY_LIMIT_BYTES, buildJsonApi, type JsonApiOptions, MESSAGES, RATE_LIMIT } from './app.ts';
export { type JsonApiConfig, LOCAL_DEVELOPMENT_DOMAINS, loadJsonApiConfig, SettingsError } from './config.ts';
export { HttpError } from './errors.ts';
export { requireAuth, validateAddress } from './helpers.ts';
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
