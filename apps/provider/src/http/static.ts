/** The wallet page's built assets (web/dist, made by `npm install` through Vite). */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Middleware } from 'koa';

const WEB_DIST = join(import.meta.dirname, '..', '..', 'web', 'dist');

export type WebAssets = { directory: string; scripts: string[]; accountScripts: string[]; stylesheets: string[] };

type Manifest = Record<string, { file: string; isEntry?: boolean; css?: string[] }>;

/** Reads Vite's manifest; throws with the command to run when the page was not built. */
export function webAssets(directory = WEB_DIST): WebAssets {
  const manifestFile = join(directory, '.vite', 'manifest.json');
  if (!existsSync(manifestFile)) {
    throw new Error(
      `the wallet page is not built (${manifestFile} missing): run npm install, or npm run build -w @signet/provider`,
    );
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const entry = (src: string) => {
    const found = manifest[src];
    if (!found) throw new Error(`the wallet page build has no ${src}; rebuild with npm run build -w @signet/provider`);
    return found;
  };
  const script = entry('src/interaction.ts');
  const account = entry('src/account.ts');
  const style = entry('src/signet.css');
  return {
    directory,
    scripts: [`/assets/${script.file}`],
    accountScripts: [`/assets/${account.file}`],
    stylesheets: [`/assets/${style.file}`, ...(script.css ?? []).map((f) => `/assets/${f}`)],
  };
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Serves files under `prefix` from `directory`: content-hashed names, so cached for a year. */
export function serveStatic(prefix: string, directory: string): Middleware {
  const root = normalize(directory + sep);
  return (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !ctx.path.startsWith(prefix)) return next();
    const name = ctx.path.slice(prefix.length);
    const file = normalize(join(directory, name));
    const type = TYPES[extname(file)];
    if (!type || !file.startsWith(root) || name.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
      ctx.status = 404;
      ctx.body = 'not found';
      return;
    }
    ctx.type = type;
    ctx.length = statSync(file).size;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = ctx.method === 'HEAD' ? null : createReadStream(file);
  };
}
