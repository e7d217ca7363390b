import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { bodyIs, prefersJson } from './negotiation.ts';

/** A Koa context over a request with these headers (nothing is read from a socket). */
function contextWith(headers: Record<string, string>) {
  const app = new Koa();
  const req = { headers, method: 'POST', url: '/', socket: {} } as unknown as IncomingMessage;
  const res = { getHeader: () => undefined, setHeader: () => {}, removeHeader: () => {} } as unknown as ServerResponse;
  return app.createContext(req, res);
}

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/json; charset',
  'application/json ;charset=utf-8',
  'application/jsonx',
  'text/json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded;charset=UTF-8',
  'application/x-www-form-urlencoded; charset=utf-8',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencoded; charset="utf-8"',
  'multipart/form-data; boundary=x',
  '',
];
const BODY_HEADERS: Record<string, string>[] = [
  { 'content-length': '12' },
  { 'content-length': '0' },
  { 'transfer-encoding': 'chunked' },
  {},
  { 'content-length': 'x' },
];

describe('negotiation: the answers Koa gives, faster for common headers', () => {
  it('bodyIs answers as Boolean(ctx.is(type)) for every content type and body framing', () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded'] as const) {
      for (const contentType of CONTENT_TYPES) {
        for (const body of BODY_HEADERS) {
          const headers = { ...body, ...(contentType === undefined ? {} : { 'content-type': contentType }) };
          const ctx = contextWith(headers);
          expect(bodyIs(ctx, type), `${type} for ${JSON.stringify(headers)}`).toBe(Boolean(ctx.is(type)));
        }
      }
    }
  });

  it('bodyIs finds the common spellings without Koa', () => {
    const ctx = contextWith({ 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', 'content-length': '3' });
    ctx.is = () => {
      throw new Error('parsed the header');
    };
    expect(bodyIs(ctx, 'application/x-www-form-urlencoded')).toBe(true);
    expect(bodyIs(ctx, 'application/json')).toBe(false);
  });

  it('prefersJson answers as ctx.accepts("html", "json") === "json"', () => {
    for (const accept of [
      undefined,
      'application/json',
      'text/html',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      '*/*',
      'application/json, text/plain, */*',
      'application/json;q=0.5, text/html;q=0.4',
      'text/html;q=0, application/json',
      'application/jsonx',
      '',
    ]) {
      const ctx = contextWith(accept === undefined ? {} : { accept });
      expect(prefersJson(ctx), `Accept: ${accept}`).toBe(ctx.accepts('html', 'json') === 'json');
    }
  });
});
