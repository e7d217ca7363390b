/**
 * Sign in from another device (RFC 8628) over real HTTP, as a device and a person's browser do
 * it: the device asks for codes and polls the token endpoint; the person opens the verification
 * URI, enters (or follows a link with) the user code, confirms it, and signs on the wallet page
 * through the interaction contract.
 */
import type { CookieJar } from './cookies.ts';
import { request } from './cookies.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export type DeviceAuthorization = {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval?: number;
};

/** Registers a public device client (no redirect URI) through dynamic registration. */
export async function registerDeviceClient(
  registrationEndpoint: string,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string } & Record<string, unknown>> {
  const response = await fetch(registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
      response_types: [],
      token_endpoint_auth_method: 'none',
      client_name: 'Living-room TV',
      ...metadata,
    }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** The device's first request (RFC 8628 §3.1). */
export async function deviceAuthorization(
  endpoint: string,
  clientId: string,
  scope = 'openid',
  headers: Record<string, string> = {},
): Promise<DeviceAuthorization> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ client_id: clientId, scope }),
  });
  if (response.status !== 200) throw new Error(`device authorization answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** One poll of the token endpoint (RFC 8628 §3.4): the status and the JSON answer. */
export async function pollDeviceToken(
  tokenEndpoint: string,
  clientId: string,
  deviceCode: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: clientId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The value of a named hidden input in a page (the device pages' CSRF token). */
export function formValue(page: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page);
  return input?.[1];
}

/** GET the verification URI; returns the page and its CSRF token. */
export async function openDevicePage(
  jar: CookieJar,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; page: string; xsrf: string }> {
  const response = await request(jar, url, { headers });
  const page = await response.text();
  return { status: response.status, page, xsrf: formValue(page, 'xsrf') ?? '' };
}

/** POST the code form (typed code, its confirmation or its cancellation) to the verification URI. */
export async function postDeviceForm(
  jar: CookieJar,
  verificationUri: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return request(jar, verificationUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
    body: new URLSearchParams(fields),
  });
}

/**
 * The person's part up to the wallet page: open the verification URI, type the code, confirm
 * it. Returns the interaction URL the confirmation redirects to.
 */
export async function confirmUserCode(jar: CookieJar, verificationUri: string, userCode: string): Promise<URL> {
  const entry = await openDevicePage(jar, verificationUri);
  const typed = await postDeviceForm(jar, verificationUri, { xsrf: entry.xsrf, user_code: userCode });
  const confirmPage = await typed.text();
  if (typed.status !== 200) throw new Error(`code entry answered ${typed.status}: ${confirmPage.slice(0, 500)}`);
  const confirmed = await postDeviceForm(jar, verificationUri, {
    xsrf: formValue(confirmPage, 'xsrf') ?? '',
    user_code: formValue(confirmPage, 'user_code') ?? userCode,
    confirm: 'yes',
  });
  const location = confirmed.headers.get('location');
  if (confirmed.status !== 303 || !location) {
    throw new Error(`confirmation answered ${confirmed.status}: ${(await confirmed.text()).slice(0, 500)}`);
  }
  return new URL(location, verificationUri);
}

/** After the signature's 303: follow the provider's redirects to the page that ends a device sign-in. */
export async function followToDevicePage(jar: CookieJar, from: URL, location: string, maxHops = 5): Promise<URL> {
  let url = new URL(location, from);
  for (let hop = 0; hop < maxHops; hop++) {
    const response = await request(jar, url);
    const next = response.headers.get('location');
    if (!next) {
      if (response.status === 200) return url;
      throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    url = new URL(next, url);
  }
  throw new Error('too many redirects');
}
