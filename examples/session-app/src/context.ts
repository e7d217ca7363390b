import type { ChainRegistry } from '@signet/siwe';
import type { Context, Hono } from 'hono';
import type { IronSession } from 'iron-session';
import type { SessionAppConfig } from './config.ts';
import type { SessionRecords } from './records.ts';

export type SessionData = { nonce?: string; nonceIssuedAt?: number; address?: string; chainId?: number; sessionId?: string };
export type Env = { Variables: { session: IronSession<SessionData> } };
export type AppContext = Context<Env>;

/** What the route modules share. */
export type AppDeps = {
  app: Hono<Env>;
  config: SessionAppConfig;
  now: () => number;
  chains: ChainRegistry;
  records: SessionRecords;
};

/** How long a session lives (the cookie's lifetime, and how long an ended one is remembered). */
export const SESSION_TTL_SECONDS = 24 * 3600;

/** A nonce must be used within this time (the spec: expire nonces after a few minutes). */
export const NONCE_MAX_AGE_MS = 10 * 60_000;

export type FailStatus = 400 | 401 | 413 | 429 | 503;

/** The app's error answer: `{ error: { type, message } }` with its status. */
export const failure = (c: AppContext, type: string, message: string, status: FailStatus) =>
  c.json({ error: { type, message } }, status);
