export { SettingsError } from '@signet/settings';
export { type App, type BuildOptions, buildApp } from './app.ts';
export { type Config, loadConfig, type Profile, SETTING_NAMES } from './config.ts';
export { createLogger, type Logger } from './observability/logger.ts';
export { SERVER_TIMEOUTS, type ServerTimeouts, startProvider } from './server.ts';
export {
  type BitcoinMessageFields,
  type BitcoinMessageOptions,
  bitcoinExpectationsFor,
  bitcoinMessageFields,
  bitcoinMessageFromDetails,
} from './signin/bitcoin/contract.ts';
export { expectationsFor, type MessageOptions, messageFromDetails, messageParameters } from './signin/contract.ts';
export type { InteractionClient, InteractionDetails } from './signin/details.ts';
export { ACCOUNT_NAMESPACES, type AccountNamespace } from './signin/namespaces.ts';
export {
  type SolanaMessageOptions,
  type SolanaSignInInput,
  solanaExpectationsFor,
  solanaMessageFromDetails,
  solanaSignInInput,
} from './signin/solana/contract.ts';
export { createMemoryStore, type Store, type Write } from './storage/index.ts';
