export { SettingsError } from '@signet/settings';
export { type App, type BuildOptions, buildApp } from './app.ts';
export { type Config, loadConfig, type Profile, SETTING_NAMES } from './config.ts';
export { expectationsFor, type MessageOptions, messageFromDetails, messageParameters } from './interaction/contract.ts';
export type { InteractionClient, InteractionDetails } from './interaction/details.ts';
export { ACCOUNT_NAMESPACES, type AccountNamespace } from './interaction/namespaces.ts';
export { createLogger, type Logger } from './logger.ts';
export { SERVER_TIMEOUTS, type ServerTimeouts, startProvider } from './server.ts';
export {
  type SolanaMessageOptions,
  type SolanaSignInInput,
  solanaExpectationsFor,
  solanaMessageFromDetails,
  solanaSignInInput,
} from './solana/contract.ts';
export { createMemoryStore, type Store, type Write } from './storage/index.ts';
