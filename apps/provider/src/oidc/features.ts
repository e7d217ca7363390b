/**
 * Every feature oidc-provider turns on by default is decided here, on or off, with the reason and
 * its test in docs/conformance.md ("Features"); a test compares discovery with it.
 */
import { randomUUID } from 'node:crypto';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { DocumentClients } from '../clients/metadata-documents/index.ts';
import type { Config } from '../config.ts';
import { TTL } from '../deployment/lifetimes.ts';
import type { ProfileDefinition as Profile } from '../deployment/profiles.ts';
import { deviceFlowFeature } from '../device/flow.ts';
import { resourceIndicatorsFeature } from '../resources/feature.ts';
import { logoutPages } from './pages.ts';

type Features = NonNullable<Configuration['features']>;

export type FeatureDependencies = {
  config: Config;
  profile: Profile;
  supportedScopes: ReadonlySet<string>;
  stylesheets: string[];
  pageHeaders(ctx: KoaContextWithOIDC, redirectUri?: string): void;
  documents?: DocumentClients;
};

/** Dynamic registration (RFC 7591) and its management (RFC 7592). */
function registration(config: Config, profile: Profile): Pick<Features, 'registration' | 'registrationManagement'> {
  return {
    registration: {
      enabled: true,
      // The earliest hook in oidc-provider's registration handler, run before it decides
      // whether the client gets a secret: apply the profile's default auth method there, so
      // a client that names none is registered (and answered) as that default says.
      idFactory: (ctx) => {
        const body = ctx.oidc.body as Record<string, unknown> | undefined;
        if (body && body.token_endpoint_auth_method === undefined) {
          body.token_endpoint_auth_method = profile.defaultClientAuthMethod;
        }
        return randomUUID();
      },
      initialAccessToken: config.registrationToken ?? false,
    },
    registrationManagement: { enabled: true, rotateRegistrationAccessToken: false },
  };
}

export function features(deps: FeatureDependencies): Features {
  const { config, profile, supportedScopes, stylesheets, pageHeaders, documents } = deps;
  return {
    devInteractions: { enabled: false },
    // Pushed authorization requests (RFC 9126) at /request: rate-limited with /auth, bodies
    // bounded (middleware/request-size.ts); a client may register require_pushed_authorization_requests.
    pushedAuthorizationRequests: {
      enabled: true,
      requirePushedAuthorizationRequests: false,
      allowUnregisteredRedirectUris: false,
    },
    // DPoP (RFC 9449): sender-constrained tokens for clients that send proofs, or that register
    // dpop_bound_access_tokens; proof replays are detected in storage (shared by replicas).
    dPoP: { enabled: true, allowReplay: false },
    // Resource indicators (RFC 8707): RFC 9068 JWT access tokens for the resources RESOURCE_INDICATORS allows.
    resourceIndicators: resourceIndicatorsFeature({
      policy: config.resourceIndicators,
      scopes: supportedScopes,
      accessTokenTtl: TTL.AccessToken,
    }),
    // Client ID Metadata Documents, and OpenID Connect RP Metadata Choices for what they offer.
    clientIdMetadataDocument: documents?.feature ?? { enabled: false },
    rpMetadataChoices: { enabled: documents !== undefined },
    ...registration(config, profile),
    // Sign in from another device (RFC 8628): the person enters the device's code at /device
    // and signs with a wallet as in any sign-in (device/: pages, limits, pace, fresh signature).
    deviceFlow: deviceFlowFeature({ config, stylesheets, pageHeaders: (ctx) => pageHeaders(ctx) }),
    introspection: { enabled: true },
    revocation: { enabled: true },
    userinfo: { enabled: true },
    jwtUserinfo: { enabled: true },
    // Logout tokens to every client of the session with a backchannel_logout_uri (relying-party/backchannel.ts).
    backchannelLogout: { enabled: true },
    rpInitiatedLogout: logoutPages({
      domain: config.domain,
      endSessionPath: profile.routes.end_session,
      stylesheets,
      pageHeaders,
    }),
  };
}
