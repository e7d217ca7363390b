/**
 * Client management at the profile's own path (hosted: /client/<id>), on top of
 * oidc-provider's <registration>/<id> route: requests are mapped in, URIs mapped out, and the
 * registration route's own /<id> answers 404. Undefined when the profile uses oidc-provider's path.
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { foldPath, routeKey, routeOf } from '../http/route-key.ts';

export function clientManagementPath(profile: ProfileDefinition, baseUrl: string): Middleware | undefined {
  if (profile.clientManagementPath === profile.routes.registration) return undefined;
  const outside = `${profile.clientManagementPath}/`;
  const inside = `${profile.routes.registration}/`;
  const [foldedOutside, foldedInside] = [foldPath(outside), foldPath(inside)];
  const registrationRoute = routeKey(profile.routes.registration);
  return (ctx, next) => {
    const folded = foldPath(ctx.path);
    if (folded.startsWith(foldedInside)) {
      ctx.status = 404;
      ctx.body = { error: 'not_found', error_description: `clients are managed at ${outside}<client_id>` };
      return;
    }
    const managed = folded.startsWith(foldedOutside);
    // Only registration and management answer with a registration_client_uri to map out.
    if (!managed && routeOf(ctx) !== registrationRoute) return next();
    if (managed) ctx.path = inside + ctx.path.slice(outside.length);
    return next().then(() => {
      const body = ctx.body as { registration_client_uri?: string } | undefined;
      if (body && typeof body === 'object' && typeof body.registration_client_uri === 'string') {
        body.registration_client_uri = body.registration_client_uri.replace(`${baseUrl}${inside}`, `${baseUrl}${outside}`);
      }
    });
  };
}
