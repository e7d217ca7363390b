/**
 * The two deployments of the specification, as data: one server, one setting (PROFILE).
 * Everything that differs between them is here; the rest of the provider is shared.
 */
import type { Config, Profile } from '../config.ts';

export type ProfileDefinition = {
  /** oidc-provider route table (paths relative to the issuer origin). */
  routes: {
    authorization: string;
    token: string;
    userinfo: string;
    jwks: string;
    registration: string;
    introspection: string;
    revocation: string;
    end_session: string;
    pushed_authorization_request: string;
    /** Where a person enters a device's user code (RFC 8628 verification_uri; device sign-ins resume at <this>/<uid>). */
    code_verification: string;
    /** Where a device asks for a device code and a user code (RFC 8628 §3.1). */
    device_authorization: string;
  };
  /** Public path prefix of client management (RFC 7592), when it differs from the registration route. */
  clientManagementPath: string;
  scopes: string[];
  /** The scopes_supported list advertised, when a subset of what works. */
  advertisedScopes?: string[];
  responseTypes: string[];
  subjectTypes: string[];
  /** Token endpoint client authentication methods accepted. */
  clientAuthMethods: string[];
  /** …and the ones advertised in discovery, when a subset. */
  advertisedClientAuthMethods?: string[];
  /** The claims_supported list advertised, when it must be exactly the spec's. */
  advertisedClaims?: string[];
  /** The subject_types_supported list advertised, when a subset of what works. */
  advertisedSubjectTypes?: string[];
  /** Scope values and claims that work but are left out of discovery (an extension the operator has not advertised). */
  unadvertised?: { scopes: string[]; claims: string[] };
  /** token_endpoint_auth_method of a registered client that names none. */
  defaultClientAuthMethod: 'none' | 'client_secret_basic';
  /**
   * Issue refresh tokens to clients registered with the refresh_token grant whatever the scope
   * (true), or only when they ask for offline_access (false, oidc-provider's default). Public
   * clients' refresh tokens rotate on every use either way.
   */
  refreshTokensWithoutOfflineAccess: boolean;
};

const COMMON_ROUTES = {
  token: '/token',
  introspection: '/token/introspection',
  revocation: '/token/revocation',
  end_session: '/session/end',
  pushed_authorization_request: '/request',
  code_verification: '/device',
  device_authorization: '/device/auth',
};

export const PROFILES: Record<Profile, ProfileDefinition> = {
  'self-hosted': {
    routes: { ...COMMON_ROUTES, authorization: '/auth', userinfo: '/me', jwks: '/jwks', registration: '/reg' },
    clientManagementPath: '/reg',
    scopes: ['openid', 'offline_access', 'profile', 'siwe', 'wallets'],
    responseTypes: ['code'],
    subjectTypes: ['public'],
    // client_secret_post too: libraries such as passport-openidconnect send the secret in the body.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    defaultClientAuthMethod: 'none',
    refreshTokensWithoutOfflineAccess: false,
  },
  hosted: {
    routes: { ...COMMON_ROUTES, authorization: '/authorize', userinfo: '/userinfo', jwks: '/jwk', registration: '/register' },
    clientManagementPath: '/client',
    // siwe works too (the raw message and signature), and offline_access is accepted (stock
    // clients such as oidc-agent register it and refuse a client without it) though it grants
    // nothing more: refresh tokens go to every client registered for them. Discovery carries
    // exactly the published table's values (openid, profile; its seven claims; pairwise);
    // extensions are added to it only when the operator turns their advertising on
    // (EMAIL_SCOPE, ADVERTISE_WALLETS_SCOPE: `profileFor`). A client that registers
    // `subject_type: public`, or names none, still gets public subjects.
    scopes: ['openid', 'offline_access', 'profile', 'siwe', 'wallets'],
    advertisedScopes: ['openid', 'profile'],
    responseTypes: ['code', 'id_token', 'id_token token'],
    subjectTypes: ['public', 'pairwise'],
    advertisedSubjectTypes: ['pairwise'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    advertisedClientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    advertisedClaims: ['sub', 'aud', 'exp', 'iat', 'iss', 'preferred_username', 'picture'],
    defaultClientAuthMethod: 'client_secret_basic',
    // offline_access is not advertised (the spec's table): a client registered with the
    // refresh_token grant gets refresh tokens anyway, so browser apps can renew a session.
    refreshTokensWithoutOfflineAccess: true,
  },
};

/** The `wallets` scope and the claims an account client receives (relying-party/account-subject.ts). */
const WALLETS_SCOPE = 'wallets';
const ACCOUNT_CLAIMS = ['wallet', 'wallets'];

/**
 * The profile as this configuration runs it. With `EMAIL_SCOPE` on, the `email` scope and its
 * claims are supported and, where the profile advertises an exact list, added to it. The
 * `wallets` scope and the `wallet`, `wallets` claims always work for account clients; with
 * `ADVERTISE_WALLETS_SCOPE` on they are advertised too (added to an exact list), with it off they
 * are left out of discovery.
 */
export function profileFor(
  config: Pick<Config, 'profile' | 'emailScope' | 'advertiseWalletsScope'> & Partial<Pick<Config, 'clientIdMetadataDocuments'>>,
): ProfileDefinition {
  const base = PROFILES[config.profile];
  const scopes = [...base.scopes];
  const advertisedScopes = base.advertisedScopes && [...base.advertisedScopes];
  const advertisedClaims = base.advertisedClaims && [...base.advertisedClaims];
  if (config.advertiseWalletsScope) {
    advertisedScopes?.push(WALLETS_SCOPE);
    advertisedClaims?.push(...ACCOUNT_CLAIMS);
  }
  if (config.emailScope) {
    scopes.push('email');
    advertisedScopes?.push('email');
    advertisedClaims?.push('email', 'email_verified');
  }
  return {
    ...base,
    scopes,
    ...(advertisedScopes ? { advertisedScopes } : {}),
    ...(advertisedClaims ? { advertisedClaims } : {}),
    ...(config.advertiseWalletsScope ? {} : { unadvertised: { scopes: [WALLETS_SCOPE], claims: ACCOUNT_CLAIMS } }),
    ...(config.clientIdMetadataDocuments ? documentAuthMethods(base) : {}),
  };
}

/**
 * The client authentication a Client ID Metadata Document may resolve to (`none`, or
 * `private_key_jwt` with its keys), accepted and advertised beside the profile's own: a client
 * that reads discovery before choosing (ChatGPT offers both by RP Metadata Choices) must find
 * the one its document resolves to, and Claude uses a document only where `none` is listed.
 */
const DOCUMENT_AUTH_METHODS = ['none', 'private_key_jwt'];
function documentAuthMethods(
  base: ProfileDefinition,
): Pick<ProfileDefinition, 'clientAuthMethods' | 'advertisedClientAuthMethods'> {
  const add = (methods: string[]) => [...methods, ...DOCUMENT_AUTH_METHODS.filter((method) => !methods.includes(method))];
  return {
    clientAuthMethods: add(base.clientAuthMethods),
    ...(base.advertisedClientAuthMethods ? { advertisedClientAuthMethods: add(base.advertisedClientAuthMethods) } : {}),
  };
}
