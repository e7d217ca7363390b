/**
 * GET /device/success: where a finished device sign-in lands (303 from oidc-provider's resume,
 * flow.ts's successSource): "you can return to your device", naming the client when the link
 * names a client that exists. It changes nothing and reveals nothing a client's own sign-in page
 * does not show.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../config.ts';
import { type ClientView, successPage } from './pages.ts';
import { DEVICE_SUCCESS_PATH } from './paths.ts';

type RouteDependencies = {
  config: Pick<Config, 'domain'>;
  stylesheets: string[];
  findClient(clientId: string): Promise<{ clientId: string; clientName?: string } | undefined>;
  pageHeaders(ctx: Context): void;
};

export function deviceRoutes(router: Router, deps: RouteDependencies) {
  router.get(DEVICE_SUCCESS_PATH, async (ctx) => {
    const clientId = typeof ctx.query.client_id === 'string' ? ctx.query.client_id.slice(0, 200) : undefined;
    const found = clientId ? await deps.findClient(clientId).catch(() => undefined) : undefined;
    const client: ClientView | undefined = found
      ? { client_id: found.clientId, ...(found.clientName ? { client_name: found.clientName } : {}) }
      : undefined;
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.body = successPage({ stylesheets: deps.stylesheets, domain: deps.config.domain, client });
    deps.pageHeaders(ctx);
  });
}
