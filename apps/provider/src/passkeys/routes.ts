/** Every passkey route, mounted on Signet's router (app.ts): on the account page, and on the wallet page. */
import type Router from '@koa/router';
import type { Services } from '../services.ts';
import { passkeyAccountRoutes } from './account-routes.ts';
import { passkeySignInRoutes } from './sign-in-routes.ts';

export function passkeyRoutes(router: Router, services: Services) {
  passkeyAccountRoutes(router, services);
  passkeySignInRoutes(router, services);
}
