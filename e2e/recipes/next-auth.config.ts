/**
 * next-auth 4 (pages/api/auth/[...nextauth].ts: `export default NextAuth(signetAuthOptions(process.env))`)
 * with Signet as an OAuth provider that speaks OpenID Connect. Register a confidential client with
 * the redirect URI {NEXTAUTH_URL}/api/auth/callback/signet.
 */
export function signetAuthOptions(env: {
  SIGNET_ISSUER: string; // exactly the discovery document's "issuer" (hosted: with its trailing slash)
  SIGNET_CLIENT_ID: string;
  SIGNET_CLIENT_SECRET: string;
  NEXTAUTH_SECRET: string; // 32+ random characters
}) /* : NextAuthOptions (from 'next-auth') */ {
  return {
    secret: env.NEXTAUTH_SECRET,
    providers: [
      {
        id: 'signet',
        name: 'Sign-In with Ethereum',
        type: 'oauth' as const,
        wellKnown: `${env.SIGNET_ISSUER.replace(/\/$/, '')}/.well-known/openid-configuration`,
        idToken: true,
        checks: ['pkce' as const, 'state' as const, 'nonce' as const],
        clientId: env.SIGNET_CLIENT_ID,
        clientSecret: env.SIGNET_CLIENT_SECRET,
        authorization: { params: { scope: 'openid profile' } },
        // The name is the ENS name, else the address; add the email scope for an email.
        profile: (claims: { sub: string; preferred_username?: string; picture?: string; email?: string }) => ({
          id: claims.sub,
          name: claims.preferred_username ?? claims.sub,
          image: claims.picture ?? null,
          email: claims.email ?? null,
        }),
      },
    ],
  };
}
