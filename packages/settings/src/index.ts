/**
 * Settings for every Signet app: a zod schema of environment variables, read once at start.
 * A bad value throws a SettingsError whose message starts with the variable's name, so a
 * misconfigured process stops at once and says what to fix.
 */
import { z } from 'zod';

export class SettingsError extends Error {
  override readonly name: string = 'SettingsError';
}

export type Env = Record<string, string | undefined>;

/** Trimmed text; empty counts as unset. */
export const text = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const textOr = (fallback: string) => text().transform((v) => v ?? fallback);

export const int = (min: number, max: number, fallback: number) =>
  text().transform((value, ctx) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
      return z.NEVER;
    }
    return n;
  });

export const bool = (fallback = false) =>
  text().transform((value, ctx) => {
    if (value === undefined) return fallback;
    const v = value.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });

export const oneOf = <T extends string>(values: readonly T[], fallback: T) =>
  text().transform((value, ctx) => {
    const v = (value ?? fallback) as T;
    if (!values.includes(v)) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}` });
      return z.NEVER;
    }
    return v;
  });

/** An absolute http(s) URL (as a string), optionally with a default. */
export const httpUrl = (fallback?: string) =>
  text().transform((value, ctx) => {
    const v = value ?? fallback;
    if (v === undefined) return undefined;
    try {
      const url = new URL(v);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    return z.NEVER;
  });

/** A secret of at least `minLength` characters; required unless `optional`. */
export const secret = (minLength: number, { optional = false } = {}) =>
  text().transform((value, ctx) => {
    if (value === undefined) {
      if (optional) return undefined;
      ctx.addIssue({ code: 'custom', message: `is required (a secret of ${minLength}+ characters)` });
      return z.NEVER;
    }
    if (value.length < minLength) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${minLength} characters` });
      return z.NEVER;
    }
    return value;
  });

/** Comma-separated list of non-empty items. */
export const list = () =>
  text().transform((value) =>
    value === undefined
      ? []
      : value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
  );

/** A comma-separated list of EIP-155 chain ids (`1,10,137`), de-duplicated; undefined when unset. */
export const chainIds = () =>
  text().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const ids = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length === 0 || !ids.every((id) => /^[1-9][0-9]*$/.test(id) && Number.isSafeInteger(Number(id)))) {
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of chain ids, e.g. 1,10,137' });
      return z.NEVER;
    }
    return [...new Set(ids.map(Number))];
  });

/** Parses `env` with the schema; throws SettingsError naming the first bad variable. */
export function readSettings<S extends z.ZodRawShape>(shape: S, env: Env): z.output<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const variable = String(issue?.path[0] ?? 'settings');
  const got = env[variable];
  const shown = got === undefined || /SECRET|KEY|TOKEN|PASSWORD/i.test(variable) ? '' : ` (got ${JSON.stringify(got)})`;
  throw new SettingsError(`${variable}: ${issue?.message ?? 'invalid'}${shown}`);
}
