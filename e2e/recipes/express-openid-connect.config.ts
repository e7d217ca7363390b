import { auth, type ConfigParams } from 'express-openid-connect';

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
  };
  return auth(config);
}
