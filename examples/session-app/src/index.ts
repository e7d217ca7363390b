export { buildSessionApp, type SessionAppOptions } from './app.ts';
export { loadSessionAppConfig, type SessionAppConfig, SettingsError } from './config.ts';
export { loadPageAssets } from './page.ts';
