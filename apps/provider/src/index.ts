export { type App, type BuildOptions, buildApp } from './app.ts';
export { type Config, ConfigError, loadConfig, type Profile } from './config.ts';
export type { InteractionClient, InteractionDetails } from './interaction/details.ts';
export { startProvider } from './server.ts';
export { createLogger, type Logger } from './logger.ts';
