/**
 * Whether an ENS name is normalized (ENSIP-15), apart from the resolver (index.ts) so that the
 * claims, which ask it of every name a sign-in record holds, load neither viem nor the resolver:
 * a provider without ENS_RPC_URL never loads them (app.ts).
 */
import { ens_normalize } from '@adraffy/ens-normalize';

/**
 * Labels of lowercase letters and digits joined by single hyphens: names ENSIP-15 leaves as
 * they are, known without its Unicode tables (about 23 MB of heap, built on first use).
 */
const PLAIN_ASCII = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$/;

/**
 * True when `name` is exactly its ENSIP-15 normalization: viem's `normalize` (ox's), which is
 * `ens_normalize` of @adraffy/ens-normalize, imported directly so that the provider does not
 * load `viem/ens` (about 14 MB of RSS) for it.
 */
export function isNormalized(name: string): boolean {
  if (PLAIN_ASCII.test(name)) return true;
  try {
    return ens_normalize(name) === name;
  } catch {
    return false;
  }
}
