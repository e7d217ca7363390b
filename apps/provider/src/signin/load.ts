/**
 * Loading a sign-in: the interaction by its uid, matched with the interaction cookie that the
 * authorization endpoint set, its client, and the details the page and the checks use.
 */
import type { Context } from 'koa';
import { errors as oidcErrors, type Provider } from 'oidc-provider';
import { type DocumentView, documentView } from '../clients/metadata-documents/index.ts';
import { clientFields } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import { accessConditionsOf } from '../onchain/access.ts';
import { grantRequestedResources } from '../resources/grants.ts';
import type { Store } from '../storage/index.ts';
import { buildDetails, clientView, type InteractionClient, type InteractionDetails } from './details.ts';

export type LoadedInteraction = {
  interaction: {
    uid: string;
    iat: number;
    exp: number;
    params: Record<string, unknown>;
    prompt: { name: string };
    result?: Record<string, unknown>;
    /** The session's grant for this client when it had one before this interaction (oidc-provider's). */
    grantId?: string;
    returnTo: string;
    save(ttlSeconds: number): Promise<unknown>;
  };
  client: InteractionClient;
  /** oidc-provider's client, for the access gate. */
  oidcClient: { clientId: string };
  details: InteractionDetails;
};

/** What a sign-in's details take from its client. */
type ClientShape = {
  view: InteractionClient;
  fields: ReturnType<typeof clientFields>;
  conditions: ReturnType<typeof accessConditionsOf>;
  document: DocumentView | undefined;
};

/**
 * Derived once per client object: oidc-provider keeps one object per client for as long as its
 * stored metadata is unchanged (it makes a new one when the metadata changes), so what is
 * derived from it stays true for the object's life.
 */
const shapes = new WeakMap<object, ClientShape>();
function shapeOf(client: { clientId: string }): ClientShape {
  let shape = shapes.get(client);
  if (!shape) {
    const fields = clientFields(client);
    shape = {
      view: clientView(client.clientId, fields),
      fields,
      conditions: accessConditionsOf(fields),
      document: documentView(client),
    };
    shapes.set(client, shape);
  }
  return shape;
}

/**
 * The sign-in's client. A client known by its metadata document is fetched again once the copy
 * held expired; a document that now fails is this sign-in's error, in words.
 */
async function findClient(provider: Provider, clientId: string) {
  try {
    return await provider.Client.find(clientId);
  } catch (error) {
    if (!(error instanceof oidcErrors.InvalidClient || error instanceof oidcErrors.InvalidClientMetadata)) throw error;
    const description = (error as { error_description?: string }).error_description ?? error.message;
    throw new HttpError('CLIENT_DOCUMENT_UNAVAILABLE', description, { cause: error });
  }
}

/** oidc-provider's interaction cookie (its default name), scoped to /interaction/<uid>. */
const INTERACTION_COOKIE = '_interaction';

/** Why an interaction that could not be loaded with its cookie is not there: unknown, expired, or the cookie. */
async function diagnose(provider: Provider, uid: string, cookieProblem: HttpError): Promise<HttpError> {
  const stored = await provider.Interaction.find(uid, { ignoreExpiration: true });
  if (!stored) return new HttpError('INTERACTION_NOT_FOUND', 'no sign-in with this id; start again from the site you came from');
  if (stored.isExpired) {
    const client = await findClient(provider, String(stored.params.client_id)).catch(() => undefined);
    return new HttpError('INTERACTION_EXPIRED', 'this sign-in expired; start again from the site you came from', {
      expired: {
        client: client ? clientView(client.clientId, clientFields(client)) : undefined,
        redirectUri: String(stored.params.redirect_uri),
      },
    });
  }
  return cookieProblem;
}

export async function loadInteraction(ctx: Context, provider: Provider, config: Config, uid: string): Promise<LoadedInteraction> {
  // The cookie's value is the uid of the sign-in it belongs to. This read only picks the error
  // to show, so it skips the signature: oidc-provider's interactionDetails below checks it (and
  // loads the interaction once) on the common path, and a forged cookie fails there.
  const cookie = ctx.cookies.get(INTERACTION_COOKIE, { signed: false });
  if (!cookie) {
    throw await diagnose(
      provider,
      uid,
      new HttpError('INTERACTION_COOKIE_MISSING', 'the sign-in cookie is missing; open this page from the site you came from'),
    );
  }
  if (cookie !== uid) {
    throw await diagnose(
      provider,
      uid,
      new HttpError('INTERACTION_COOKIE_MISSING', 'the sign-in cookie belongs to another sign-in'),
    );
  }
  let interaction: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    interaction = await provider.interactionDetails(ctx.req, ctx.res);
  } catch (error) {
    if (!(error instanceof oidcErrors.SessionNotFound)) throw error;
    // The cookie is this sign-in's, but the sign-in, its signature or the session behind it is not.
    const detail = (error as { error_description?: string }).error_description ?? 'no session';
    throw await diagnose(
      provider,
      uid,
      new HttpError('SESSION_CHANGED', `the provider session changed (${detail}); start again`),
    );
  }
  const client = await findClient(provider, String(interaction.params.client_id));
  if (!client) throw new HttpError('INTERACTION_NOT_FOUND', 'the client of this sign-in no longer exists');
  const { view, fields, conditions, document } = shapeOf(client);
  return {
    interaction: interaction as unknown as LoadedInteraction['interaction'],
    client: view,
    oidcClient: client,
    details: buildDetails(config, interaction as never, view, conditions, fields, document),
  };
}

/**
 * Ends a loaded sign-in with one outcome and returns where the browser goes next.
 *
 * The outcome is claimed first, atomically (SET NX on `interaction:done:<uid>`): of two posts
 * of the same signed message, or a post and an abort, on this replica or another, exactly one
 * wins and the other gets 409 INTERACTION_COMPLETED; so the nonce (the uid) is spent once, and a
 * request that loaded the interaction before another one finished it cannot write it back after
 * oidc-provider's resume has removed it. `work` then makes the result (the grant, the sign-in
 * record); it is saved on the interaction this request already loaded, as oidc-provider's
 * interactionResult would (without merging an earlier submission) but without loading it again.
 * If anything after the claim fails, the claim is released and the same message may be posted again.
 */
export async function completeInteraction(
  store: Store,
  loaded: LoadedInteraction,
  work: () => Promise<Record<string, unknown>>,
): Promise<string> {
  const { interaction } = loaded;
  const key = `interaction:done:${interaction.uid}`;
  const remaining = interaction.exp - Math.floor(Date.now() / 1000);
  if (!(await store.setIfAbsent(key, '1', Math.max(1, remaining) + 60))) {
    throw new HttpError('INTERACTION_COMPLETED', 'this sign-in was already completed');
  }
  try {
    interaction.result = await work();
    await interaction.save(remaining);
    return interaction.returnTo;
  } catch (error) {
    await store.delete(key).catch(() => {});
    throw error;
  }
}

/** The redirect URI an authorization request's sign-in is for (none for a device sign-in). */
export function redirectUriOf(loaded: LoadedInteraction): string | undefined {
  const uri = loaded.interaction.params.redirect_uri;
  return typeof uri === 'string' ? uri : undefined;
}

/**
 * The grant a sign-in gives: what the client asked for, less what the profile does not support
 * (as the details show it), with the resources it named (resources/grants.ts).
 */
export async function grantAsAsked(provider: Provider, loaded: LoadedInteraction, accountId: string): Promise<string> {
  const { interaction, details } = loaded;
  const grant = new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
  grant.addOIDCScope(details.scopes.join(' ') || 'openid');
  grantRequestedResources(grant, interaction.params.resource, details.scopes);
  return grant.save();
}
