export {
  buildMcpServer,
  createMcp,
  createResourceServerFor,
  type McpServerOptions,
  SCOPES_SUPPORTED,
  SERVER_INFO,
} from './app.ts';
export { loadMcpServerConfig, type McpServerConfig, SettingsError, settingsReference } from './config.ts';
export { type Identity, identityOf, registerWhoami } from './whoami.ts';
