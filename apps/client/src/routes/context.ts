import type { Context, Hono } from 'hono';
import type { IronSession } from 'iron-session';
import type * as oidc from 'openid-client';
import type { ClientConfig } from '../config.ts';
import type { SessionData } from '../session.ts';

export type Env = { Variables: { session: IronSession<SessionData> } };
export type ClientContext = Context<Env>;

/** What every route module is given: the app to add routes to, the settings, and the provider's configuration. */
export type RouteDeps = {
  app: Hono<Env>;
  config: ClientConfig;
  oidcConfig: () => Promise<oidc.Configuration>;
};

/** Back to the page with an error to show (the description cut to 300 characters). */
export const backWithError = (error: string, description: string) =>
  `/?${new URLSearchParams({ error, error_description: description.slice(0, 300) })}`;
