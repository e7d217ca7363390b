/** The page (`/`), its stylesheet and logo. */
import { LOGO_SVG, renderHome, STYLES } from '../page.ts';
import type { RouteDeps } from './context.ts';
import { csrfToken } from './logout.ts';

export function pageRoutes({ app, config }: RouteDeps): void {
  app.get('/logo.svg', (c) => {
    c.header('content-type', 'image/svg+xml');
    c.header('cache-control', 'public, max-age=86400');
    return c.body(LOGO_SVG);
  });

  app.get('/styles.css', (c) => {
    c.header('content-type', 'text/css; charset=utf-8');
    c.header('cache-control', 'public, max-age=3600');
    return c.body(STYLES);
  });

  app.get('/', async (c) => {
    c.header('cache-control', 'no-store');
    const session = c.get('session');
    return c.html(
      renderHome({
        user: session.user,
        csrf: session.user ? await csrfToken(session) : undefined,
        error: c.req.query('error'),
        errorDescription: c.req.query('error_description'),
        issuer: config.issuer,
        name: config.clientName,
      }),
    );
  });
}
