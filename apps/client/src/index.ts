export { buildClientApp, type SessionUser } from './app.ts';
export { type ClientConfig, loadClientConfig, SettingsError } from './config.ts';
export { createRegistrar, type Registration } from './registration.ts';
export { startClient } from './server.ts';
