import { type BetterAuthOptions, betterAuth } from 'better-auth';
import { genericOAuth } from 'better-auth/plugins';

/**
 * better-auth's genericOAuth plugin with Signet. better-auth creates users by email: ask for the
 * `email` scope, and have the operator give this client an address source (docs/relying-parties.md, "An email
 * for relying parties that need one"). No profile mapping is needed.
 */
export function signetBetterAuth(env: {
  SIGNET_ISSUER: string; // exactly the discovery document's "issuer" (hosted: with its trailing slash)
  SIGNET_CLIENT_ID: string;
  SIGNET_CLIENT_SECRET: string;
  BASE_URL: string; // this app's origin; the callback is {BASE_URL}/api/auth/callback/signet
  BETTER_AUTH_SECRET: string; // 32+ random characters
  database: BetterAuthOptions['database']; // the application's own user store
}) {
  return betterAuth({
    baseURL: env.BASE_URL,
    secret: env.BETTER_AUTH_SECRET,
    database: env.database,
    telemetry: { enabled: false },
    plugins: [
      genericOAuth({
        config: [
          {
            providerId: 'signet',
            discoveryUrl: `${env.SIGNET_ISSUER.replace(/\/$/, '')}/.well-known/openid-configuration`,
            requireIdTokenVerification: true,
            clientId: env.SIGNET_CLIENT_ID,
            clientSecret: env.SIGNET_CLIENT_SECRET,
            authentication: 'basic',
            scopes: ['openid', 'profile', 'email'],
            pkce: true,
          },
        ],
      }),
    ],
  });
}
