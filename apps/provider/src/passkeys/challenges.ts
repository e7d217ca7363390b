/**
 * The challenges passkeys sign, each issued for one purpose and bound to where it was issued:
 *
 *   passkey-challenge:<challenge>        { purpose: 'sign-in', uid }                 for what is left of the interaction
 *                                        { purpose: 'registration', session, account } for 10 minutes (TTL.Interaction)
 *   passkey-challenge-used:<challenge>   the one-time marker, set by the answer that spends it
 *
 * An answer is looked up by the challenge its client data names (one key), refused unless that
 * challenge was issued for this purpose here (this interaction; this browser's account session
 * and account), and spent by an atomic claim (`setIfAbsent`, shared by every replica and every
 * storage): of two posts of one answer, on one replica or two, exactly one gets through.
 */
import { TTL } from '../deployment/lifetimes.ts';
import { HttpError } from '../errors.ts';
import type { Store } from '../storage/index.ts';

export type ChallengeBinding =
  | { purpose: 'sign-in'; uid: string }
  | { purpose: 'registration'; session: string; account: string };

const challengeKey = (challenge: string) => `passkey-challenge:${challenge}`;
const usedKey = (challenge: string) => `passkey-challenge-used:${challenge}`;

const mismatch = (words: string) => new HttpError('PASSKEY_CHALLENGE_MISMATCH', words);

export async function issueChallenge(store: Store, challenge: string, binding: ChallengeBinding, ttlSeconds = TTL.Interaction) {
  await store.set(challengeKey(challenge), JSON.stringify(binding), Math.max(1, Math.min(ttlSeconds, TTL.Interaction)));
}

const sameBinding = (a: ChallengeBinding, b: ChallengeBinding) =>
  a.purpose === 'sign-in'
    ? b.purpose === 'sign-in' && a.uid === b.uid
    : b.purpose === 'registration' && a.session === b.session && a.account === b.account;

/** Throws PASSKEY_CHALLENGE_MISMATCH unless `challenge` was issued (and not spent) for exactly `expected`. */
export async function requireChallenge(store: Store, challenge: string, expected: ChallengeBinding): Promise<void> {
  const raw = await store.get(challengeKey(challenge));
  if (raw === undefined) {
    throw mismatch('this passkey answer’s challenge was not issued here, has expired or was already used; try again');
  }
  const issued = JSON.parse(raw) as ChallengeBinding;
  if (!sameBinding(issued, expected)) {
    throw mismatch(
      issued.purpose !== expected.purpose
        ? `this passkey answer was made for ${issued.purpose === 'sign-in' ? 'a sign-in' : 'adding a passkey'}, not for this`
        : expected.purpose === 'sign-in'
          ? 'this passkey answer was made for another sign-in'
          : 'this passkey answer was made for another browser or account',
    );
  }
}

/** Spends a verified answer's challenge: true for its first use, false for a replay (here or on another replica). */
export async function spendChallenge(store: Store, challenge: string): Promise<boolean> {
  // Longer than any challenge lives (TTL.Interaction at most), so a replay never finds it gone.
  const spent = await store.setIfAbsent(usedKey(challenge), '1', TTL.Interaction + 60);
  if (spent) await store.delete(challengeKey(challenge));
  return spent;
}
