/**
 * Loading a sign-in: the interaction by its uid, matched with the interaction cookie that the
 * authorization endpoint set, its client, and the details the page and the checks use.
 */
import type { Context } from 'koa';
import { errors as oidcErrors, type Provider } from 'oidc-provider';
import { accessConditionsOf } from '../access.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import { buildDetails, clientView, type InteractionClient, type InteractionDetails } from './details.ts';

export type LoadedInteraction = {
  interaction: {
    uid: string;
    iat: number;
    exp: number;
    params: Record<string, unknown>;
    prompt: { name: string };
    result?: Record<string, unknown>;
  };
  client: InteractionClient;
  /** oidc-provider's client, for its metadata (access conditions). */
  oidcClient: { clientId: string; metadata(): Record<string, unknown> };
  details: InteractionDetails;
};

/** oidc-provider's interaction cookie (its default name), scoped to /interaction/<uid>. */
const INTERACTION_COOKIE = '_interaction';

export async function loadInteraction(ctx: Context, provider: Provider, config: Config, uid: string): Promise<LoadedInteraction> {
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) {
    const expired = await provider.Interaction.find(uid, { ignoreExpiration: true });
    if (expired) {
      const client = await provider.Client.find(String(expired.params.client_id));
      throw new HttpError('INTERACTION_EXPIRED', 'this sign-in expired; start again from the site you came from', {
        expired: { client: client ? clientView(client) : undefined, redirectUri: String(expired.params.redirect_uri) },
      });
    }
    throw new HttpError('INTERACTION_NOT_FOUND', 'no sign-in with this id; start again from the site you came from');
  }
  // The cookie's value is the uid of the sign-in it belongs to (oidc-provider signs it).
  const cookie = ctx.cookies.get(INTERACTION_COOKIE);
  if (!cookie) {
    throw new HttpError(
      'INTERACTION_COOKIE_MISSING',
      'the sign-in cookie is missing; open this page from the site you came from',
    );
  }
  if (cookie !== uid) throw new HttpError('INTERACTION_COOKIE_MISSING', 'the sign-in cookie belongs to another sign-in');
  try {
    await provider.interactionDetails(ctx.req, ctx.res);
  } catch (error) {
    if (!(error instanceof oidcErrors.SessionNotFound)) throw error;
    // The cookie is this sign-in's, but its signature or the session behind it is not.
    const detail = (error as { error_description?: string }).error_description ?? 'no session';
    throw new HttpError('SESSION_CHANGED', `the provider session changed (${detail}); start again`);
  }
  const client = await provider.Client.find(String(interaction.params.client_id));
  if (!client) throw new HttpError('INTERACTION_NOT_FOUND', 'the client of this sign-in no longer exists');
  const view = clientView(client);
  return {
    interaction: interaction as unknown as LoadedInteraction['interaction'],
    client: view,
    oidcClient: client,
    details: buildDetails(config, interaction as never, view, accessConditionsOf(client.metadata())),
  };
}
