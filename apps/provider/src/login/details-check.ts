/**
 * Before a program signs anything, the details it is asked to sign must be the issuer's own: a
 * look-alike issuer that relays a real provider would otherwise hand over a real provider's
 * `domain`, `uri` and nonce, get the program's signature of them, and spend it at the real
 * provider with the program's identity. A wallet shows a person the domain for this reason; a
 * program has no person to look, so it checks, against what it was told (`--issuer`, its own
 * redirect URI), and never against anything the issuer answered:
 *
 *  - `domain` is the issuer's host (with its port when not the scheme's default);
 *  - `uri` is on the issuer's origin;
 *  - `resources` names exactly the program's redirect URI (or, for a sign-in from another device,
 *    `<issuer origin>/device`), and nothing else.
 */
import { LoginError } from './errors.ts';

export type DetailsToSign = { domain: unknown; uri: unknown; resources: unknown };

/** Throws a LoginError (DOMAIN_MISMATCH, URI_MISMATCH or RESOURCES_MISMATCH) unless the details are for this issuer and resource. */
export function checkDetailsAreTheIssuers(details: DetailsToSign, issuer: URL, resource: string): void {
  if (details.domain !== issuer.host) {
    throw new LoginError(
      'DOMAIN_MISMATCH',
      `refusing to sign: the sign-in asks for a signature for the domain ${JSON.stringify(details.domain)}, not the issuer's (${issuer.host}); another site may be relaying this one`,
    );
  }
  let origin: string | undefined;
  try {
    origin = new URL(String(details.uri)).origin;
  } catch {
    origin = undefined;
  }
  if (origin !== issuer.origin) {
    throw new LoginError(
      'URI_MISMATCH',
      `refusing to sign: the sign-in's URI ${JSON.stringify(details.uri)} is not on the issuer's origin (${issuer.origin})`,
    );
  }
  const { resources } = details;
  if (!Array.isArray(resources) || resources.length !== 1 || resources[0] !== resource) {
    throw new LoginError(
      'RESOURCES_MISMATCH',
      `refusing to sign: the sign-in names the resources ${JSON.stringify(resources)}, where this program expects exactly ${JSON.stringify([resource])}`,
    );
  }
}
