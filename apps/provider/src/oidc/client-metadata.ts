/**
 * Client metadata Signet adds to oidc-provider's (RFC 7591 metadata it does not know, accepted
 * and stored as given), and the per-client rules its validator runs on every client however it
 * arrives (registration, management, CLIENTS_FILE, the CLI, storage).
 */
import { type Configuration, errors } from 'oidc-provider';
import { assertMetadataBounds, assertNoUserinfo } from '../clients/metadata.ts';
import { assertRedirectUris } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { accessConditionsProblem } from '../onchain/access.ts';
import { accountSubjectProblem } from '../relying-party/account-subject.ts';
import { backchannelLogoutUriProblem } from '../relying-party/backchannel.ts';
import { validateEmailMetadata } from '../relying-party/email.ts';
import { passkeySignInProblem } from '../relying-party/passkey-sign-in.ts';
import { supportedScope } from '../relying-party/scopes.ts';
import { subjectChainProblem } from '../relying-party/subject.ts';
import { accountNamespacesProblem, offeredNamespaces } from '../signin/namespaces.ts';

type Metadata = Record<string, unknown>;
type Ctx = { oidc?: { route?: string } } | undefined;

/**
 * access_conditions: what an account must hold to sign in to this client (onchain/access.ts).
 * subject_chain, ens_email, synthetic_email_domain: relying-party/subject.ts and email.ts.
 * account_subject: relying-party/account-subject.ts.
 * account_namespaces: the kinds of account that may sign in to it (signin/namespaces.ts).
 * passkey_sign_in: whether an account client takes a passkey sign-in (relying-party/passkey-sign-in.ts).
 */
export const EXTRA_CLIENT_METADATA = [
  'software_id',
  'software_version',
  'access_conditions',
  'subject_chain',
  'account_subject',
  'ens_email',
  'synthetic_email_domain',
  'account_namespaces',
  'passkey_sign_in',
] as const;

/** Each of Signet's own metadata's problem (undefined: none), by name. */
function problemFinders(config: Config): Record<string, (value: unknown, metadata: Metadata, ctx: Ctx) => string | undefined> {
  const chainIds = Object.keys(config.rpcUrls).map(Number);
  return {
    account_namespaces: (value, metadata, ctx) => {
      // At registration and update, a namespace this provider does not offer now is refused too.
      const route = ctx?.oidc?.route;
      const offered = route === 'registration' || route === 'client_update' ? offeredNamespaces(config) : undefined;
      return value === undefined ? undefined : accountNamespacesProblem(value, metadata as never, offered);
    },
    access_conditions: (value) => (value === undefined ? undefined : accessConditionsProblem(value, chainIds)),
    account_subject: (value) => accountSubjectProblem(value),
    passkey_sign_in: (value, metadata) => passkeySignInProblem(value, metadata as { account_subject?: unknown }),
    subject_chain: (value) => subjectChainProblem(value),
  };
}

/**
 * The rules every client meets, run once per client (on `software_id`, which every client has a
 * value or undefined for): redirect URIs, no userinfo in URLs, sizes where metadata arrives over
 * HTTP, the back-channel logout URI, and scope values the profile does not support dropped (as at
 * authorization and refresh).
 */
function checkWholeClient(config: Config, supportedScopes: ReadonlySet<string>, ctx: Ctx, metadata: Metadata) {
  assertRedirectUris(metadata as never);
  assertNoUserinfo(metadata as never);
  // Sizes are checked where metadata arrives over HTTP (registration, management; the CLI and
  // CLIENTS_FILE check them themselves), not when a stored client is loaded.
  if (ctx) assertMetadataBounds(metadata as never);
  const problem = backchannelLogoutUriProblem(metadata.backchannel_logout_uri, config.allowPrivateFetch);
  if (problem) throw new errors.InvalidClientMetadata(problem);
  if (typeof metadata.scope === 'string') metadata.scope = supportedScope(metadata.scope, supportedScopes) ?? 'openid';
}

export function extraClientMetadata(config: Config, supportedScopes: ReadonlySet<string>): Configuration['extraClientMetadata'] {
  const problems = problemFinders(config);
  return {
    properties: [...EXTRA_CLIENT_METADATA],
    validator(ctx, key, value, metadata) {
      const findProblem = problems[key];
      if (findProblem) {
        const problem = findProblem(value, metadata as Metadata, ctx as Ctx);
        if (problem) throw new errors.InvalidClientMetadata(problem);
        return;
      }
      if (key === 'ens_email' || key === 'synthetic_email_domain') {
        validateEmailMetadata(ctx as never, key, value, metadata as Metadata);
        return;
      }
      if (value !== undefined && typeof value !== 'string') {
        throw new errors.InvalidClientMetadata(`${key} must be a string`);
      }
      if (key === 'software_id') checkWholeClient(config, supportedScopes, ctx as Ctx, metadata as Metadata);
    },
  };
}
