/**
 * The limits of a sign-in from another device (RFC 8628 §5.1, §5.2): user-code entry per address
 * (RATE_LIMIT_DEVICE, every spelling of /device, typed codes and codes in links alike), the
 * lockout after wrong codes, the tries per code, and one code confirmed once: of two confirmations
 * at once, on one replica or two sharing storage, exactly one goes on.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CookieJar,
  confirmUserCode,
  deviceAuthorization,
  formValue,
  openDevicePage,
  postDeviceForm,
  registerDeviceClient,
  request,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import { describe, expect, it } from 'vitest';

async function deviceClientOf(provider: TestProvider) {
  const client = await registerDeviceClient(`${provider.url}/reg`);
  return { client, codes: () => deviceAuthorization(`${provider.url}/device/auth`, client.client_id) };
}

/** A person at `address` (X-Forwarded-For, the provider trusting its proxy) typing a code. */
async function typeCode(provider: TestProvider, code: string, address: string, path = '/device') {
  const jar = new CookieJar();
  const from = { 'x-forwarded-for': address };
  const entry = await openDevicePage(jar, `${provider.url}/device`, from);
  return postDeviceForm(jar, `${provider.url}${path}`, { xsrf: entry.xsrf, user_code: code }, from);
}

describe('sign in from another device: limits', () => {
  it('five wrong codes lock the address out for 15 minutes (429, Retry-After), even for a right code; another address is not', async () => {
    const provider = await startTestProvider({ TRUST_PROXY: 'true' });
    try {
      const { codes } = await deviceClientOf(provider);
      const live = await codes();
      for (let i = 0; i < 5; i++) {
        const wrong = await typeCode(provider, `BBBB-BBB${'BCDFG'[i]}`, '203.0.113.7');
        expect(wrong.status, `wrong code ${i + 1}`).toBe(400);
        expect(await wrong.text()).toContain('That code is not right');
      }
      const locked = await typeCode(provider, live.user_code, '203.0.113.7');
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(890);
      expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      expect(await locked.text()).toContain('Too many wrong codes from this network');
      // The lockout covers codes in links too.
      const jar = new CookieJar();
      const linked = await request(jar, live.verification_uri_complete, { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(linked.status).toBe(429);
      // The same /64 is the same IPv6 client; another address is not locked.
      const elsewhere = await typeCode(provider, live.user_code, '203.0.113.8');
      expect(elsewhere.status).toBe(200);
      expect(await elsewhere.text()).toContain(live.user_code);
    } finally {
      await provider.stop();
    }
  });

  it('RATE_LIMIT_DEVICE: code entries per address per window, every spelling of /device and links alike', async () => {
    const provider = await startTestProvider({ TRUST_PROXY: 'true', RATE_LIMIT_DEVICE: '3' });
    try {
      const { codes } = await deviceClientOf(provider);
      const live = await codes();
      expect((await typeCode(provider, live.user_code, '198.51.100.1', '/device')).status).toBe(200);
      expect((await typeCode(provider, live.user_code, '198.51.100.1', '/DEVICE/')).status).toBe(200);
      const jar = new CookieJar();
      const from = { headers: { 'x-forwarded-for': '198.51.100.1' } };
      expect((await request(jar, live.verification_uri_complete, from)).status).toBe(200);
      for (const path of ['/device', '/Device/', '/DEVICE']) {
        const refused = await typeCode(provider, live.user_code, '198.51.100.1', path);
        expect(refused.status, path).toBe(429);
        expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      expect((await request(jar, live.verification_uri_complete, from)).status).toBe(429);
      // Opening the page without a code costs nothing.
      expect((await openDevicePage(jar, `${provider.url}/device`, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
      expect((await typeCode(provider, live.user_code, '198.51.100.2')).status).toBe(200);
      expect(await (await fetch(`${provider.url}/metrics`)).text()).toMatch(/signet_rate_limited_total\{bucket="device"\} 4/);
    } finally {
      await provider.stop();
    }
  });

  it('one code may be entered 10 times in its life, from any number of addresses', async () => {
    const provider = await startTestProvider({ TRUST_PROXY: 'true' });
    try {
      const { codes } = await deviceClientOf(provider);
      const live = await codes();
      for (let i = 0; i < 10; i++) expect((await typeCode(provider, live.user_code, `192.0.2.${i + 1}`)).status).toBe(200);
      const refused = await typeCode(provider, live.user_code, '192.0.2.100');
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain('This code was entered too many times');
      // Another code is untouched.
      expect((await typeCode(provider, (await codes()).user_code, '192.0.2.100')).status).toBe(200);
    } finally {
      await provider.stop();
    }
  });
});

describe('sign in from another device: limits (what a code survives)', () => {
  it.each([
    ['one replica', false],
    ['two replicas sharing storage', true],
  ])(
    'two confirmations of one code at once (%s, SQLite): exactly one goes on, the other is told the code was used',
    async (_, replicas) => {
      // A real store whose writes wait for the end of their request (a unit of work), as on every
      // backend but memory: both confirmations read the code before either marks it.
      const storage = { STORAGE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'signet-device-')), 'signet.db')}` };
      const first = await startTestProvider(storage);
      const second = replicas ? await startTestProvider({ ...storage, ISSUER: first.issuer }) : first;
      try {
        const { codes } = await deviceClientOf(first);
        for (let round = 0; round < 5; round++) {
          const live = await codes();
          // Two browsers reach the confirmation with the same code.
          const pages = await Promise.all(
            [first, second].map(async (provider) => {
              const jar = new CookieJar();
              const entry = await openDevicePage(jar, `${provider.url}/device`);
              const typed = await postDeviceForm(jar, `${provider.url}/device`, { xsrf: entry.xsrf, user_code: live.user_code });
              return { provider, jar, page: await typed.text() };
            }),
          );
          const answers = await Promise.all(
            pages.map(({ provider, jar, page }) =>
              postDeviceForm(jar, `${provider.url}/device`, {
                xsrf: formValue(page, 'xsrf') as string,
                user_code: live.user_code,
                confirm: 'yes',
              }),
            ),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          expect(statuses, `round ${round}`).toEqual([303, 400]);
          const loser = answers.find((answer) => answer.status === 400) as Response;
          expect(await loser.text()).toContain('That code was already used');
          const winner = answers.find((answer) => answer.status === 303) as Response;
          expect(winner.headers.get('location')).toMatch(/\/interaction\//);
        }
      } finally {
        if (second !== first) await second.stop();
        await first.stop();
      }
    },
  );

  it('a confirmation that fails before the code is taken (a stale form, no session at all) does not burn it', async () => {
    const provider = await startTestProvider();
    try {
      const { codes } = await deviceClientOf(provider);
      const live = await codes();
      const jar = new CookieJar();
      // No provider session in this browser (cookies blocked, or a form older than the session): words, not a 500.
      const sessionless = await postDeviceForm(jar, `${provider.url}/device`, {
        xsrf: 'from-nowhere',
        user_code: live.user_code,
        confirm: 'yes',
      });
      expect(sessionless.status).toBe(400);
      expect(await sessionless.text()).toContain('cookies may be blocked');
      // A session, but the form's token is another tab's.
      await openDevicePage(jar, `${provider.url}/device`);
      const stale = await postDeviceForm(jar, `${provider.url}/device`, {
        xsrf: 'from-another-tab',
        user_code: live.user_code,
        confirm: 'yes',
      });
      expect(stale.status).toBe(400);
      expect(await stale.text()).toContain('This page was open too long');
      const interactionUrl = await confirmUserCode(jar, live.verification_uri, live.user_code);
      expect(interactionUrl.pathname).toMatch(/^\/interaction\//);
      // The resume of a device sign-in opened in a browser without its session: words, not a 500.
      const elsewhere = await request(new CookieJar(), `${provider.url}/device/${interactionUrl.pathname.split('/')[2]}`);
      expect(elsewhere.status).toBe(400);
    } finally {
      await provider.stop();
    }
  });
});
