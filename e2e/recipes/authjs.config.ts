import type { AuthConfig } from '@auth/core';

/** Auth.js (@auth/core, also behind next-auth v5, SvelteKit Auth, …) with Signet as a generic OIDC provider. */
export function signetAuthConfig(env: {
  SIGNET_ISSUER: string; // exactly the discovery document's "issuer" (hosted: with its trailing slash)
  SIGNET_CLIENT_ID: string;
  SIGNET_CLIENT_SECRET: string;
  AUTH_SECRET: string;
}): AuthConfig {
  return {
    basePath: '/auth',
    secret: env.AUTH_SECRET,
    trustHost: true,
    providers: [
      {
        id: 'signet',
        name: 'Sign-In with Ethereum',
        type: 'oidc',
        issuer: env.SIGNET_ISSUER,
        clientId: env.SIGNET_CLIENT_ID,
        clientSecret: env.SIGNET_CLIENT_SECRET,
        authorization: { params: { scope: 'openid profile' } },
        checks: ['pkce', 'state', 'nonce'],
        // No email: a wallet has none. The name is the ENS name, else the address.
        profile: (claims) => ({
          id: claims.sub,
          name: (claims.preferred_username as string | undefined) ?? claims.sub,
          image: (claims.picture as string | undefined) ?? null,
          email: null,
        }),
      },
    ],
  };
}
