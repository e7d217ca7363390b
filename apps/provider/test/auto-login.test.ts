/**
 * ERC-8019 (wallet-managed auto-login for SIWE): a wallet may sign a message without asking when
 * a policy it recorded covers it (same domain, a URI prefix, the allowed chains, resources within
 * a set). On both profiles, over real HTTP: the policy docs/wallets.md tells a wallet to record
 * from a first sign-in to a client covers the next sign-in to that client and redirect URI (a new
 * nonce, a new time, the same policy), and covers no sign-in for another client or another
 * redirect URI of the same client, which the person must be asked about again.
 */
import { parseSiweMessage, type SiweMessage } from '@signet/siwe';
import {
  CookieJar,
  followToClient,
  getDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import type * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** An ERC-8019 allow-policy (the fields its auto-sign rule reads). */
type AutoLoginPolicy = { domain: string; uriPrefix: string; allowedChains: number[]; allowedResources: string[] };

/** ERC-8019's reference implementation of its auto-sign rule (`shouldAutoSign`), as the ERC writes it. */
function shouldAutoSign(M: SiweMessage, P: AutoLoginPolicy): boolean {
  if (M.domain !== P.domain) return false;
  if (!M.uri.startsWith(P.uriPrefix)) return false;
  if (!P.allowedChains.includes(M.chainId)) return false;
  if (M.resources) {
    const allowList = P.allowedResources || [];
    if (!M.resources.every((resource) => allowList.includes(resource))) return false;
  }
  return true;
}

/** The policy docs/wallets.md ("Auto-login") tells a wallet to record for a Signet client, from the message it signed. */
const policyFrom = (message: SiweMessage, chainIds: number[]): AutoLoginPolicy => ({
  domain: message.domain,
  uriPrefix: message.uri,
  allowedChains: chainIds,
  allowedResources: [...(message.resources ?? [])],
});

for (const profile of ['self-hosted', 'hosted'] as const) {
  describe(`ERC-8019 auto-login covers consecutive sign-ins to one client (${profile} profile)`, () => {
    let provider: TestProvider;
    let client: oidc.Configuration;
    let other: oidc.Configuration;
    const account = privateKeyToAccount(generatePrivateKey());
    const SECOND_REDIRECT = 'http://127.0.0.1:4999/second';
    const OTHER_REDIRECT = 'http://127.0.0.1:4998/callback';
    const RIDER_REDIRECT = 'http://127.0.0.1:4997/callback';

    beforeAll(async () => {
      provider = await startTestProvider({ PROFILE: profile, CHAIN_IDS: '1,10' });
      client = await registerPublicClient(provider.url, {
        client_name: 'Shop',
        redirect_uris: [TEST_REDIRECT_URI, SECOND_REDIRECT],
      });
      other = await registerPublicClient(provider.url, { client_name: 'Another Shop', redirect_uris: [OTHER_REDIRECT] });
    });
    afterAll(() => provider?.stop());

    /** One sign-in in `jar` (the page's message, signed and posted: 303 onward); returns what was signed. */
    async function signIn(config: oidc.Configuration, jar: CookieJar, extra: Record<string, string> = {}, chainId = 1) {
      const { url } = await pkceAuthorization(config, extra);
      const interactionUrl = await startInteraction(jar, url);
      const details = await getDetails(jar, interactionUrl);
      const text = messageFor(details, account.address, { chainId });
      const response = await postSignature(jar, interactionUrl, {
        message: text,
        signature: await account.signMessage({ message: text }),
      });
      expect(response.status, await response.clone().text()).toBe(303);
      await followToClient(jar, interactionUrl, response.headers.get('location') as string);
      return { message: parseSiweMessage(text), text, details };
    }

    /** prompt=none in `jar`'s session: where the provider sends the browser (a code or an error). */
    async function silentAuthorization(config: oidc.Configuration, jar: CookieJar, redirectUri: string) {
      const { url } = await pkceAuthorization(config, { prompt: 'none', redirect_uri: redirectUri });
      const start = new URL(url);
      return followToClient(jar, start, start.href);
    }

    it('the policy from the first sign-in covers the second (another nonce, another time, another allowed chain)', async () => {
      const jar = new CookieJar();
      const first = await signIn(client, jar);
      const policy = policyFrom(first.message, first.details.chainIds);
      expect(policy).toEqual({
        domain: new URL(provider.url).host,
        uriPrefix: new URL(provider.url).origin,
        allowedChains: [1, 10],
        allowedResources: [TEST_REDIRECT_URI],
      });
      // A later sign-in to the same client (its session over), on the other chain.
      const second = await signIn(client, new CookieJar(), {}, 10);
      expect(second.text).not.toBe(first.text);
      expect(second.message.nonce).not.toBe(first.message.nonce);
      expect(shouldAutoSign(second.message, policy)).toBe(true);
      // And asked again inside the same session (prompt=login): the same policy.
      const third = await signIn(client, jar, { prompt: 'login' });
      expect(shouldAutoSign(third.message, policy)).toBe(true);
    });

    it('it covers no sign-in for another client, nor for another redirect URI of the same client: the wallet asks again', async () => {
      const policy = policyFrom((await signIn(client, new CookieJar())).message, [1, 10]);
      const elsewhere = await signIn(other, new CookieJar(), { redirect_uri: OTHER_REDIRECT });
      expect(elsewhere.message.domain).toBe(policy.domain);
      expect(shouldAutoSign(elsewhere.message, policy)).toBe(false);
      const secondRedirect = await signIn(client, new CookieJar(), { redirect_uri: SECOND_REDIRECT });
      expect(secondRedirect.message.resources).toEqual([SECOND_REDIRECT]);
      expect(shouldAutoSign(secondRedirect.message, policy)).toBe(false);
    });

    it('a client registered with another client’s redirect URI rides its policy once, and gets no silent code at its own', async () => {
      const policy = policyFrom((await signIn(client, new CookieJar())).message, [1, 10]);
      // Open registration lets a client list the shop's redirect URI beside its own.
      const rider = await registerPublicClient(provider.url, {
        client_name: 'Rider',
        redirect_uris: [TEST_REDIRECT_URI, RIDER_REDIRECT],
      });
      const jar = new CookieJar();
      // The wallet auto-signs the rider's message for the shop's redirect URI (the code goes there: useless to the rider).
      const ride = await signIn(rider, jar, { redirect_uri: TEST_REDIRECT_URI, prompt: 'consent' });
      expect(shouldAutoSign(ride.message, policy)).toBe(true);
      // In that session, a silent authorization to the rider's own redirect URI gets no code.
      const silent = await silentAuthorization(rider, jar, RIDER_REDIRECT);
      expect(`${silent.origin}${silent.pathname}`).toBe(RIDER_REDIRECT);
      expect(silent.searchParams.get('code')).toBeNull();
      expect(silent.searchParams.get('error')).toBe('login_required');
      // Silently again to the redirect URI it was signed for: a code (the session itself is fine).
      expect((await silentAuthorization(rider, jar, TEST_REDIRECT_URI)).searchParams.get('code')).toBeTruthy();
    });

    it('a client with two redirect URIs: a signature for each once, then silent codes at both', async () => {
      const jar = new CookieJar();
      await signIn(client, jar);
      expect((await silentAuthorization(client, jar, TEST_REDIRECT_URI)).searchParams.get('code')).toBeTruthy();
      expect((await silentAuthorization(client, jar, SECOND_REDIRECT)).searchParams.get('error')).toBe('login_required');
      await signIn(client, jar, { redirect_uri: SECOND_REDIRECT, prompt: 'login' });
      for (const redirectUri of [SECOND_REDIRECT, TEST_REDIRECT_URI]) {
        expect((await silentAuthorization(client, jar, redirectUri)).searchParams.get('code'), redirectUri).toBeTruthy();
      }
    });
  });
}
