/**
 * The spec's optional helpers. No route uses them; an application built on this example
 * would put requireAuth in front of its protected routes and validateAddress in front of
 * routes that take an address.
 */
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.ts';

const ADDRESS = /^0x[a-fA-F0-9]{40}$/;

/** `Authorization: Bearer <token>` is required, and the token has at least 10 characters. */
export const requireAuth: MiddlewareHandler = async (c, next) => {
  const header = c.req.header('authorization');
  if (!header) throw new HttpError(401, 'Authorization header required');
  const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : header;
  if (token.length < 10) throw new HttpError(401, 'Invalid authorization token');
  await next();
};

/** The `field` (from the path parameters, else the JSON body) must be an Ethereum address. */
export function validateAddress(field: string): MiddlewareHandler {
  return async (c, next) => {
    let value: unknown = c.req.param(field);
    if (value === undefined && c.req.header('content-type')?.includes('application/json')) {
      const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
      value = body?.[field];
    }
    if (value === undefined || value === null || value === '') throw new HttpError(400, `${field} is required`);
    if (typeof value !== 'string' || !ADDRESS.test(value)) throw new HttpError(400, 'Invalid Ethereum address format');
    await next();
  };
}
