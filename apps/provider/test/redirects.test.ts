/**
 * The provider's origin is never a bouncer to a site an attacker registered: logout without an
 * id_token_hint ends on the provider's own page (the destination named, a link to follow), and
 * an error at the authorization endpoint for a dynamically registered client nobody has signed
 * in to yet is shown as a page instead of a redirect (RFC 9700 §4.11.2). Both profiles.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CookieJar,
  getDetails,
  messageFor,
  postSignature,
  request,
  startInteraction,
  startTestProvider,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Registered by the "attacker": a real https URI on a host they control. */
const TARGET = 'https://phish.example/landing';
const CALLBACK = 'https://phish.example/cb';

const wallet = () => privateKeyToAccount(generatePrivateKey());

type Discovery = {
  authorization_endpoint: string;
  end_session_endpoint: string;
  registration_endpoint: string;
  token_endpoint: string;
};

/** The provider on `profile` and its discovery document, with the steps of the tests. */
function redirectsProvider(profile: string) {
  let provider: TestProvider;
  let discovery: Discovery;

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile });
    discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
  });
  afterAll(() => provider?.stop());

  return redirectSteps({
    get provider() {
      return provider;
    },
    get discovery() {
      return discovery;
    },
  });
}

/** Registering, authorizing, following redirects and signing in, on the provider `server` gives (read when called). */
function redirectSteps(server: { provider: TestProvider; discovery: Discovery }) {
  async function register(metadata: Record<string, unknown> = {}) {
    const { discovery } = server;
    const response = await fetch(discovery.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [CALLBACK],
        post_logout_redirect_uris: [TARGET],
        token_endpoint_auth_method: 'none',
        response_types: ['code'],
        grant_types: ['authorization_code'],
        ...metadata,
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as { client_id: string };
  }

  function authorization(clientId: string, parameters: Record<string, string> = {}) {
    const { discovery } = server;
    const url = new URL(discovery.authorization_endpoint);
    for (const [key, value] of Object.entries({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 'st8',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...parameters,
    })) {
      url.searchParams.set(key, value);
    }
    return url;
  }

  /** Follows the provider's own answers (redirects on its origin, its auto-submitted forms) until one leaves it or is a page. */
  async function follow(jar: CookieJar, first: Response, base: string): Promise<Response> {
    const { provider } = server;
    let response = first;
    for (let hop = 0; hop < 6; hop++) {
      const location = response.headers.get('location');
      if ((response.status === 302 || response.status === 303) && location) {
        const next = new URL(location, base);
        if (next.origin !== new URL(provider.url).origin) return response;
        response = await request(jar, next);
        continue;
      }
      const body = await response.clone().text();
      const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(body);
      if (response.status !== 200 || !/<script>/.test(body) || !form) return response;
      const fields = new URLSearchParams();
      for (const [, name, value] of (form[2] as string).matchAll(/name="([^"]+)" value="([^"]*)"/g))
        fields.append(name as string, value as string);
      const action = new URL(form[1] as string, base);
      if (action.origin !== new URL(provider.url).origin) return response;
      response = await request(jar, action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields,
      });
    }
    return response;
  }

  /** A completed wallet sign-in to this client in the browser `jar` is; returns its ID token. */
  async function signInOnce(clientId: string, jar = new CookieJar()) {
    const { discovery } = server;
    const url = authorization(clientId);
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: wallet(), jar });
    const code = callbackUrl.searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: code as string,
        redirect_uri: CALLBACK,
        // RFC 7636's example verifier, whose S256 challenge `authorization` sends.
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      }),
    });
    expect(token.status).toBe(200);
    return ((await token.json()) as { id_token: string }).id_token;
  }

  /** A logout request; a POST sends its parameters as a form, as a page's auto-submitted form does. */
  return {
    get provider() {
      return server.provider;
    },
    get discovery() {
      return server.discovery;
    },
    register,
    authorization,
    follow,
    signInOnce,
    ...logoutSteps(server, follow),
  };
}
/** Signing out (and following the logout to its end), on the provider `server` gives (read when called). */
function logoutSteps(
  server: { provider: TestProvider; discovery: Discovery },
  follow: (jar: CookieJar, first: Response, base: string) => Promise<Response>,
) {
  function logout(jar: CookieJar, parameters: Record<string, string>, method: 'GET' | 'POST' = 'GET') {
    const { discovery } = server;
    const url = new URL(discovery.end_session_endpoint);
    if (method === 'GET') {
      url.search = new URLSearchParams(parameters).toString();
      return request(jar, url);
    }
    return request(jar, url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(parameters),
    });
  }

  /** Follows a logout to its end, confirming a "Sign out?" page when one is shown; returns the last answer. */
  async function logoutToEnd(jar: CookieJar, first: Response): Promise<Response> {
    const { provider } = server;
    let response = await follow(jar, first, provider.url);
    const text = response.status === 200 ? await response.clone().text() : '';
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(text)?.[1];
    const action = /id="op.logoutForm" method="post" action="([^"]+)"/.exec(text)?.[1];
    if (xsrf && action) {
      response = await follow(
        jar,
        await request(jar, new URL(action, provider.url), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ xsrf, logout: 'yes' }),
        }),
        provider.url,
      );
    }
    return response;
  }

  /** The answer never left the provider: a page of its own naming the target host, with a link. */
  async function heldOnPage(response: Response) {
    expect(response.headers.get('location')).toBeNull();
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('You are signed out');
    expect(page).toContain('<strong class="destination">phish.example</strong>');
  }

  return { logout, logoutToEnd, heldOnPage };
}
type RedirectsProvider = ReturnType<typeof redirectsProvider>;

/** Logout: which hints and destinations redirect, and which only show a page. */
function logoutTests(env: RedirectsProvider) {
  it('logout with client_id and no id_token_hint, no session: no redirect to the registered target, the page names its host with a link', async () => {
    const { provider, discovery, register, follow } = env;
    const client = await register();
    const jar = new CookieJar();
    const start = new URL(discovery.end_session_endpoint);
    start.searchParams.set('client_id', client.client_id);
    start.searchParams.set('post_logout_redirect_uri', TARGET);
    start.searchParams.set('state', 'x1');
    const final = await follow(jar, await request(jar, start), provider.url);
    expect(final.headers.get('location')).toBeNull();
    expect(final.status).toBe(200);
    const page = await final.text();
    expect(page).toContain('You are signed out');
    expect(page).toContain('<strong class="destination">phish.example</strong>');
    expect(page).toContain(`href="${TARGET}?state=x1"`);
    // The destination is shown once: a second visit to the page offers nothing.
    const again = await request(jar, new URL('/session/end/success', provider.url));
    expect(await again.text()).not.toContain('phish.example');
  });

  it('logout: a forged destination cookie is ignored; an unregistered post_logout_redirect_uri is still refused', async () => {
    const { provider, discovery, register } = env;
    const client = await register();
    const jar = new CookieJar();
    const forged = Buffer.from(JSON.stringify({ client_id: client.client_id, uri: 'https://elsewhere.example/' })).toString(
      'base64url',
    );
    const page = await (
      await fetch(new URL('/session/end/success', provider.url), {
        headers: { cookie: `signet_logout_to=${forged}; signet_logout_to.sig=bogus` },
      })
    ).text();
    expect(page).not.toContain('elsewhere.example');
    const start = new URL(discovery.end_session_endpoint);
    start.searchParams.set('client_id', client.client_id);
    start.searchParams.set('post_logout_redirect_uri', 'https://elsewhere.example/');
    const refused = await request(jar, start);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
  });

  it('logout with an empty id_token_hint (read as none): no redirect, the page names the host', async () => {
    const { register, logout, logoutToEnd, heldOnPage } = env;
    const client = await register();
    for (const method of ['GET', 'POST'] as const) {
      const jar = new CookieJar();
      const first = await logout(
        jar,
        { client_id: client.client_id, post_logout_redirect_uri: TARGET, id_token_hint: '', state: 'e' },
        method,
      );
      await heldOnPage(await logoutToEnd(jar, first));
    }
  });

  it('logout with the registrant’s own ID token as the hint: no redirect, with or without a session in this browser', async () => {
    const { register, signInOnce, logout, logoutToEnd, heldOnPage } = env;
    const client = await register();
    // The registrant signs in to their own client once, in their own browser, and keeps its ID token.
    const hint = await signInOnce(client.client_id);
    // A visitor without a session, and one signed in to this very client as someone else.
    const signedIn = new CookieJar();
    await signInOnce(client.client_id, signedIn);
    for (const [jar, method] of [
      [new CookieJar(), 'GET'],
      [new CookieJar(), 'POST'],
      [signedIn, 'GET'],
    ] as const) {
      const first = await logout(jar, { id_token_hint: hint, post_logout_redirect_uri: TARGET, state: 'a' }, method);
      await heldOnPage(await logoutToEnd(jar, first));
    }
  });

  it('logout with client_id alone, POSTed as a form (an auto-submitting page): no redirect', async () => {
    const { register, logout, logoutToEnd, heldOnPage } = env;
    const client = await register();
    const jar = new CookieJar();
    const first = await logout(jar, { client_id: client.client_id, post_logout_redirect_uri: TARGET }, 'POST');
    await heldOnPage(await logoutToEnd(jar, first));
  });

  it('logout with a hint from this browser’s own session for that client: the standard redirect, with the state', async () => {
    const { register, signInOnce, logout, logoutToEnd } = env;
    const client = await register();
    const jar = new CookieJar();
    const hint = await signInOnce(client.client_id, jar);
    const final = await logoutToEnd(
      jar,
      await logout(jar, { id_token_hint: hint, post_logout_redirect_uri: TARGET, state: 'ok' }),
    );
    expect(final.status).toBe(303);
    expect(final.headers.get('location')).toBe(`${TARGET}?state=ok`);
  });
}

/**
 * prompt=none, other errors and cancelled sign-ins: a page, never an automatic redirect; a sign-in
 * that succeeds is never held back.
 */
function authorizationErrorTests(env: RedirectsProvider) {
  it('prompt=none after the registrant’s own sign-in elsewhere: still a page; in the browser that signed in, the standard redirect', async () => {
    const { register, authorization, signInOnce } = env;
    const client = await register();
    const silent = authorization(client.client_id, { prompt: 'none' });
    // The registrant's throwaway sign-in, in their own browser.
    const registrant = new CookieJar();
    await signInOnce(client.client_id, registrant);
    const elsewhere = await request(new CookieJar(), silent);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
    expect(await elsewhere.text()).toContain('<strong class="destination">phish.example</strong>');
    // The browser that holds a grant for the client gets oidc-provider's answer (here a code: it is signed in).
    const here = await request(registrant, silent);
    expect(here.status).toBe(303);
    expect(new URL(here.headers.get('location') as string).origin).toBe('https://phish.example');
  });

  it('prompt=none to a client this browser has not signed in to: an error page naming the host, with a link carrying the error', async () => {
    const { register, authorization } = env;
    const client = await register();
    const silent = authorization(client.client_id, { prompt: 'none' });
    const page = await request(new CookieJar(), silent);
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const text = await page.text();
    expect(text).toContain('<strong class="destination">phish.example</strong>');
    const href = /<a class="button" href="([^"]+)"/.exec(text)?.[1];
    expect(href).toBeTruthy();
    const link = new URL((href as string).replaceAll('&amp;', '&'));
    expect(link.origin + link.pathname).toBe(CALLBACK);
    expect(link.searchParams.get('error')).toBe('login_required');
    expect(link.searchParams.get('state')).toBe('st8');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('other errors (response_mode=form_post, a missing response_type) and a cancelled sign-in: a page, never an automatic redirect', async () => {
    const { provider, register, authorization, follow } = env;
    const client = await register();
    const formPost = await request(
      new CookieJar(),
      authorization(client.client_id, { prompt: 'none', response_mode: 'form_post' }),
    );
    expect(formPost.status).toBe(400);
    const formPage = await formPost.text();
    expect(formPage).not.toContain('<script>');
    expect(formPage).toContain(`<form method="post" action="${CALLBACK}">`);
    expect(formPage).toContain('name="error" value="login_required"');
    expect(formPost.headers.get('content-security-policy')).toMatch(/form-action 'self' https:\/\/phish\.example/);

    const missing = new URL(authorization(client.client_id));
    missing.searchParams.delete('response_type');
    const noType = await request(new CookieJar(), missing);
    expect(noType.status).toBe(400);
    expect(noType.headers.get('location')).toBeNull();
    expect(await noType.text()).toContain('phish.example');

    // The person opens the wallet page and cancels.
    const jar = new CookieJar();
    const interaction = await startInteraction(jar, authorization(client.client_id));
    const aborted = await request(jar, new URL(`${interaction.pathname}/abort`, interaction), { method: 'POST' });
    expect(aborted.status).toBe(303);
    const cancelled = await follow(
      jar,
      await request(jar, new URL(aborted.headers.get('location') as string, interaction)),
      provider.url,
    );
    expect(cancelled.status).toBe(400);
    expect(cancelled.headers.get('location')).toBeNull();
    const cancelledPage = await cancelled.text();
    expect(cancelledPage).toContain('Sign-in cancelled');
    expect(cancelledPage).toContain('error=access_denied');
  });

  it('a sign-in that succeeds is never held back (the user signed for this very redirect URI)', async () => {
    const { provider, register, authorization, follow } = env;
    const client = await register();
    const jar = new CookieJar();
    const interaction = await startInteraction(jar, authorization(client.client_id));
    const details = await getDetails(jar, interaction);
    const signer = wallet();
    const message = messageFor(details, signer.address);
    const posted = await postSignature(jar, interaction, { message, signature: await signer.signMessage({ message }) });
    const final = await follow(
      jar,
      await request(jar, new URL(posted.headers.get('location') as string, interaction)),
      provider.url,
    );
    expect(final.status).toBe(303);
    expect(new URL(final.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
  });
}

describe.each(['self-hosted', 'hosted'])('redirects off the provider, %s profile', (profile) => {
  const env = redirectsProvider(profile);
  logoutTests(env);
  authorizationErrorTests(env);
});

describe('redirects off the provider: the operator’s clients', () => {
  it('a CLIENTS_FILE client gets the standard error redirect before anyone signed in', async () => {
    const file = join(tmpdir(), `signet-redirect-clients-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify([{ client_id: 'operator-app', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }]),
    );
    const provider = await startTestProvider({ CLIENTS_FILE: file });
    try {
      const url = new URL(`${provider.url}/auth`);
      for (const [key, value] of Object.entries({
        client_id: 'operator-app',
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        prompt: 'none',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })) {
        url.searchParams.set(key, value);
      }
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location') as string).searchParams.get('error')).toBe('login_required');
    } finally {
      await provider.stop();
    }
  });
});
