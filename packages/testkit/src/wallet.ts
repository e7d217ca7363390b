/**
 * A wallet that signs in through the provider's interaction contract (docs/ARCHITECTURE.md) over real
 * HTTP: follow the authorization redirect, read the interaction details as JSON, build the
 * EIP-4361 message from them, sign it with a viem account, post it, follow the redirects to
 * the client's redirect_uri.
 */

import { type InteractionDetails, messageParameters } from '@signet/provider';
import { type CreateSiweMessageParameters, createSiweMessage } from '@signet/siwe';
import type { Address, Hex } from 'viem';

export type { InteractionDetails };

import { CookieJar, request } from './cookies.ts';

export type Signer = { address: Address; signMessage(args: { message: string }): Promise<Hex> };

/** GET the authorization URL; returns the interaction URL it redirects to. */
export async function startInteraction(jar: CookieJar, authorizationUrl: URL | string): Promise<URL> {
  const response = await request(jar, authorizationUrl);
  const location = response.headers.get('location');
  if (response.status !== 303 && response.status !== 302) {
    throw new Error(`authorization request answered ${response.status}: ${await response.text()}`);
  }
  if (!location) throw new Error('authorization request did not redirect');
  const url = new URL(location, authorizationUrl);
  if (!url.pathname.startsWith('/interaction/')) {
    throw Object.assign(new Error(`authorization redirected to ${url} instead of an interaction`), { location: url });
  }
  return url;
}

export async function getDetails(jar: CookieJar, interactionUrl: URL): Promise<InteractionDetails> {
  const response = await request(jar, interactionUrl, { headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`interaction details answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as InteractionDetails;
}

/** The message the wallet page would build for these details; `overrides` tamper with it (tests of refusals). */
export function messageFor(
  details: InteractionDetails,
  address: Address,
  overrides: Partial<CreateSiweMessageParameters> = {},
): string {
  return createSiweMessage({ ...messageParameters(details, { address }), ...overrides });
}

export async function postSignature(
  jar: CookieJar,
  interactionUrl: URL,
  body: { message: string; signature: string },
  as: 'json' | 'form' = 'json',
): Promise<Response> {
  return request(jar, interactionUrl, {
    method: 'POST',
    headers: {
      'content-type': as === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      accept: as === 'json' ? 'application/json' : 'text/html',
    },
    body: as === 'json' ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
}

/**
 * Follows redirects from `location` until one leaves the provider (the client's redirect_uri).
 * `providerOrigins`: every origin that is the provider (replicas behind one issuer send the
 * browser to the issuer's origin, whichever replica answered); by default `from`'s origin.
 */
export async function followToClient(
  jar: CookieJar,
  from: URL,
  location: string,
  maxHops = 5,
  providerOrigins: string[] = [from.origin],
): Promise<URL> {
  let url = new URL(location, from);
  for (let hop = 0; hop < maxHops; hop++) {
    if (!providerOrigins.includes(url.origin)) return url;
    const response = await request(jar, url);
    const next = response.headers.get('location');
    if (!next) throw new Error(`${url} answered ${response.status} without a redirect: ${(await response.text()).slice(0, 300)}`);
    url = new URL(next, url);
  }
  throw new Error('too many redirects');
}

export type WalletSignInOptions = {
  authorizationUrl: URL | string;
  signer: Signer;
  /** The address the message names (a contract wallet's, when the signer is its owner). */
  address?: Address;
  chainId?: number;
  jar?: CookieJar;
  overrides?: Partial<CreateSiweMessageParameters>;
  /** Turns the owner's signature into the wallet's (e.g. EIP-6492 wrapping). */
  wrapSignature?: (signature: Hex) => Hex;
};

/** The whole sign-in; returns the URL the provider sent the browser to at the client. */
export async function walletSignIn(
  options: WalletSignInOptions,
): Promise<{ callbackUrl: URL; details: InteractionDetails; jar: CookieJar }> {
  const jar = options.jar ?? new CookieJar();
  const interactionUrl = await startInteraction(jar, options.authorizationUrl);
  const details = await getDetails(jar, interactionUrl);
  const message = messageFor(details, options.address ?? options.signer.address, {
    chainId: options.chainId ?? details.chainIds[0],
    ...options.overrides,
  });
  const raw = await options.signer.signMessage({ message });
  const signature = options.wrapSignature ? options.wrapSignature(raw) : raw;
  const response = await postSignature(jar, interactionUrl, { message, signature });
  if (response.status !== 303) throw new Error(`sign-in refused (${response.status}): ${await response.text()}`);
  const callbackUrl = await followToClient(jar, interactionUrl, response.headers.get('location') as string);
  return { callbackUrl, details, jar };
}
