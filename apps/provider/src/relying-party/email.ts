/**
 * The `email` scope (claims `email`, `email_verified`), for relying parties that refuse a user
 * without one. A wallet has no mailbox, so a client receives an address only when it opted in,
 * with client metadata:
 *
 * - `ens_email: true` — the `email` text record of the user's ENS primary name, when there is
 *   one (read at sign-in with the name and avatar, onchain/names). Whoever owns the name writes
 *   it and nobody checks it: `email_verified` is false.
 * - `synthetic_email_domain: "<domain>"` — `<address in lower case>@<domain>` (a Solana address:
 *   the hex of its 32 bytes, since base58 is case-sensitive; a Bitcoin base58 address the hex of
 *   its version byte and hash, bech32 in lower case: wallets/bitcoin.ts), when there is no
 *   ENS address (or the client did not ask for one). Only the operator sets it (CLIENTS_FILE or
 *   `signet clients add`): it is refused at dynamic registration and cannot be changed through
 *   client management. The address is never verified and reaches no mailbox unless the operator
 *   makes that domain deliver. It names the account's address, so pairwise clients cannot have it.
 *
 * A client without either gets no email claim even with the scope; the wallet page says what
 * will be shared before the person signs.
 */
import { domainToASCII } from 'node:url';
import { isSolanaAddress } from '@signet/siws/message';
import { errors } from 'oidc-provider';
import { bitcoinMailbox } from '../wallets/bitcoin.ts';
import { solanaAddressHex } from '../wallets/solana.ts';

/** What a client opted in to. */
export type EmailSources = { ens: boolean; syntheticDomain?: string };

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function emailSourcesOf(client: object | undefined): EmailSources | undefined {
  const c = client as { ens_email?: unknown; synthetic_email_domain?: unknown } | undefined;
  const ens = c?.ens_email === true;
  const syntheticDomain = typeof c?.synthetic_email_domain === 'string' ? c.synthetic_email_domain : undefined;
  return ens || syntheticDomain ? { ens, ...(syntheticDomain ? { syntheticDomain } : {}) } : undefined;
}

/**
 * The local part of a synthetic address: an Ethereum address in lower case; a Solana address
 * (base58, where case matters) as the hex of its 32 bytes; a Bitcoin address (the sign-in's
 * namespace says so) in its case-free form, so two accounts never share one.
 */
const mailboxOf = (address: string, namespace?: string) =>
  namespace === 'bip122' ? bitcoinMailbox(address) : isSolanaAddress(address) ? solanaAddressHex(address) : address.toLowerCase();

/**
 * Whether an e-mail address lies in `domain`'s namespace: its domain is `domain` or a subdomain,
 * compared as DNS names (case, a trailing dot and Unicode or punycode spelling folded). A domain
 * that cannot be read as one counts as inside, so it is never used where it might be.
 */
export function inMailDomain(email: string, domain: string): boolean {
  const host = domainToASCII(
    email
      .slice(email.lastIndexOf('@') + 1)
      .replace(/\.$/, '')
      .toLowerCase(),
  );
  return host === '' || host === domain || host.endsWith(`.${domain}`);
}

/**
 * The email claims for a sign-in, or none. An ENS record in the client's synthetic domain is
 * never used: anyone may write `<someone else's address>@<that domain>` into their own name's
 * record, and a relying party that keys accounts on `email` would take them for that person. The
 * operator's namespace holds only the addresses Signet makes from the signer's own address.
 */
export function emailClaims(
  sources: EmailSources | undefined,
  signIn: { address: string; email?: string; namespace?: string } | undefined,
): { email: string; email_verified: false } | undefined {
  if (!sources || !signIn) return undefined;
  const ensEmail =
    sources.ens && signIn.email && !(sources.syntheticDomain && inMailDomain(signIn.email, sources.syntheticDomain))
      ? signIn.email
      : undefined;
  const email =
    ensEmail ??
    (sources.syntheticDomain ? `${mailboxOf(signIn.address, signIn.namespace)}@${sources.syntheticDomain}` : undefined);
  return email ? { email, email_verified: false } : undefined;
}

type MetadataContext = { oidc?: { route?: string; client?: object } } | undefined;

/**
 * Validates `ens_email` / `synthetic_email_domain` (called by oidc-provider's metadata validator
 * for every client: registration, management, CLIENTS_FILE, the CLI, and clients read back from
 * storage). `ctx` tells who is asking: a registration or a client's own update cannot set the
 * synthetic domain.
 */
export function validateEmailMetadata(
  ctx: MetadataContext,
  key: string,
  value: unknown,
  metadata: Record<string, unknown>,
): void {
  if (value === undefined) return;
  if (key === 'ens_email') {
    if (typeof value !== 'boolean') throw new errors.InvalidClientMetadata('ens_email must be a boolean');
    return;
  }
  if (typeof value !== 'string' || !DOMAIN.test(value)) {
    throw new errors.InvalidClientMetadata(
      'synthetic_email_domain must be a domain name in lower case, such as wallet.example.com',
    );
  }
  const route = ctx?.oidc?.route;
  const current = (ctx?.oidc?.client as { synthetic_email_domain?: unknown } | undefined)?.synthetic_email_domain;
  if (route === 'registration' || (route === 'client_update' && value !== current)) {
    throw new errors.InvalidClientMetadata(
      'synthetic_email_domain is set by the operator (CLIENTS_FILE or signet clients add), not through registration',
    );
  }
  if (metadata.subject_type === 'pairwise') {
    throw new errors.InvalidClientMetadata('synthetic_email_domain names the address: pairwise clients cannot have it');
  }
}
