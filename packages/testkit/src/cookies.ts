/**
 * A minimal cookie jar for tests that speak HTTP the way a browser would: it keeps host-only
 * cookies by host, name and path, and sends the ones whose host and path match (oidc-provider
 * scopes its interaction cookies to /interaction/<uid> and /auth/<uid>). Like browsers, it
 * does not separate ports.
 */
type Cookie = { name: string; value: string; host: string; path: string; expires?: number };

export class CookieJar {
  private cookies = new Map<string, Cookie>();

  store(response: Response, requestUrl: string | URL): void {
    const url = new URL(requestUrl);
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
      let expires: number | undefined;
      for (const attribute of attributes) {
        const [key, val = ''] = attribute.split('=');
        const k = key?.toLowerCase();
        if (k === 'path') path = val;
        if (k === 'expires') expires = Date.parse(val);
        if (k === 'max-age') expires = Date.now() + Number(val) * 1000;
      }
      const id = `${url.hostname}|${name}|${path}`;
      if (value === '' || (expires !== undefined && expires <= Date.now())) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, host: url.hostname, path, expires });
    }
  }

  header(requestUrl: string | URL): string {
    const { pathname } = new URL(requestUrl);
    const now = Date.now();
    return [...this.cookies.values()]
      .filter(
        (c) =>
          (c.expires === undefined || c.expires > now) &&
          (pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/'),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  names(host?: string): string[] {
    return [...this.cookies.values()].filter((c) => host === undefined || c.host === host).map((c) => c.name);
  }

  clear(): void {
    this.cookies.clear();
  }
}

/** fetch with the jar's cookies, no automatic redirects (tests look at every hop). */
export async function request(jar: CookieJar, url: string | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.store(response, url);
  return response;
}
