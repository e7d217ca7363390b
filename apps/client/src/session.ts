/** What the reference client keeps in its encrypted session cookie (iron-session). */

/** The signed-in user, as the page shows them. */
export type SessionUser = { sub: string; preferredUsername: string; picture?: string; siweMessage?: string };

export type SessionData = {
  pending?: { state: string; codeVerifier: string; nonce: string; startedAt: number };
  user?: SessionUser;
  idToken?: string;
  /** The token this session's sign-out form carries (logout is a POST that must present it). */
  csrf?: string;
};
