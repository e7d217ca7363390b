import { auth, type ConfigParams } from 'express-openid-connect';

type LogoutStore = NonNullable<Extract<ConfigParams['backchannelLogout'], object>['store']>;

/**
 * express-openid-connect with Signet. It refuses public clients for the code flow: register a
 * confidential client (client_secret_basic) and give its secret.
 */
export function signetAuth(env: {
  SIGNET_ISSUER: string; // the issuer; the library reads {issuer}/.well-known/openid-configuration
  SIGNET_CLIENT_ID: string;
  SIGNET_CLIENT_SECRET: string;
  BASE_URL: string; // this app's origin; the callback is {BASE_URL}/callback
  SESSION_SECRET: string; // 32+ random characters
  // Back-channel logout (register backchannel_logout_uri {BASE_URL}/backchannel-logout): where
  // logout tokens are kept, any express-session store (share one between instances).
  BACKCHANNEL_LOGOUT_STORE?: LogoutStore;
}) {
  const config: ConfigParams = {
    issuerBaseURL: env.SIGNET_ISSUER,
    baseURL: env.BASE_URL,
    clientID: env.SIGNET_CLIENT_ID,
    clientSecret: env.SIGNET_CLIENT_SECRET,
    clientAuthMethod: 'client_secret_basic',
    secret: env.SESSION_SECRET,
    authRequired: false,
    idTokenSigningAlg: 'RS256',
    authorizationParams: { response_type: 'code', scope: 'openid profile' },
    ...(env.BACKCHANNEL_LOGOUT_STORE ? { backchannelLogout: { store: env.BACKCHANNEL_LOGOUT_STORE } } : {}),
  };
  return auth(config);
}

/** A store for one process (tests, a single instance); use a shared one (Redis, …) in production. */
export function memoryLogoutStore(): LogoutStore {
  const entries = new Map<string, Parameters<LogoutStore['set']>[1]>();
  return {
    get: (id, callback) => callback(null, entries.get(id)),
    set: (id, value, callback) => {
      entries.set(id, value);
      callback?.();
    },
    destroy: (id, callback) => {
      entries.delete(id);
      callback?.();
    },
  };
}
