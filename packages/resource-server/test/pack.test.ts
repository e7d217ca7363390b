/**
 * @signet/resource-server as a published package: `npm pack`, install the tarball with Hono into
 * a scratch project (outside the monorepo), then use it from plain Node (no TypeScript loader, no
 * export conditions) against a real local issuer, and type-check a consumer against the shipped
 * declarations.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type StandInIssuer, startStandInIssuer } from '@signet/testkit/issuer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

const HONO_VERSION = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'hono', 'package.json'), 'utf8')).version as string;
const RESOURCE = 'http://127.0.0.1:9999/mcp';
const scratch = mkdtempSync(join(tmpdir(), 'signet-resource-server-pack-'));
const project = join(scratch, 'consumer');
let files: string[] = [];
let issuer: StandInIssuer;

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  // npm test builds first; a lone run of this file builds the package itself.
  run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/resource-server/tsconfig.build.json'],
    ROOT,
  );
  const packed = JSON.parse(
    run('npm', ['pack', '-w', '@signet/resource-server', '--json', '--pack-destination', scratch], ROOT),
  ) as { filename: string; files: { path: string }[] }[];
  files = (packed[0]?.files ?? []).map((f) => f.path).sort();
  run('mkdir', ['-p', project], scratch);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const tarball = join(scratch, packed[0]?.filename as string);
  run(
    'npm',
    ['install', tarball, `hono@${HONO_VERSION}`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    project,
  );
  issuer = await startStandInIssuer({ audience: RESOURCE });
}, 180_000);

afterAll(async () => {
  await issuer?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack -w @signet/resource-server', () => {
  it('ships built JavaScript, declarations, README and LICENSE; no tests, no sources; jose its only dependency', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/adapters/hono.js',
        'dist/adapters/node.js',
      ]),
    );
    expect(files.filter((f) => /\.test\.|^src\/|^test\/|\.tsbuildinfo$|\.map$/.test(f))).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', '@signet', 'resource-server', 'package.json'), 'utf8'),
    );
    expect(Object.keys(manifest.dependencies)).toEqual(['jose']);
    expect(manifest.peerDependencies).toEqual({ hono: expect.any(String) });
    expect(manifest.private).toBeUndefined();
  });

  it('works from plain Node: verifies a token, refuses one for another resource, answers through the Hono adapter', async () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `
import { createResourceServer, ResourceServerError } from '@signet/resource-server';
import { metadataHandler, requireBearer } from '@signet/resource-server/hono';
import { Hono } from 'hono';
const rs = createResourceServer({ issuer: process.env.ISSUER, resource: process.env.RESOURCE });
const ok = await rs.verifyAccessToken(process.env.GOOD);
let refused;
try { await rs.verifyAccessToken(process.env.OTHER); } catch (error) { refused = error instanceof ResourceServerError ? error.code : String(error); }
const app = new Hono();
app.use(metadataHandler(rs));
app.use('/mcp', requireBearer(rs));
app.post('/mcp', (c) => c.json({ sub: c.get('accessToken').subject }));
const metadata = await (await app.request('/.well-known/oauth-protected-resource/mcp')).json();
const anonymous = await app.request('/mcp', { method: 'POST' });
const signedIn = await app.request('/mcp', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.GOOD } });
console.log(JSON.stringify({ sub: ok.subject, refused, metadata, challenge: anonymous.headers.get('www-authenticate'), body: await signedIn.json() }));
`,
    );
    const env = {
      ...process.env,
      ISSUER: issuer.issuer,
      RESOURCE,
      GOOD: await issuer.sign(),
      OTHER: await issuer.sign({ aud: 'http://127.0.0.1:9999/other' }),
    };
    // Asynchronously: the issuer answers from this process's event loop.
    const { stdout } = await promisify(execFile)(process.execPath, ['use.mjs'], { cwd: project, env, timeout: 60_000 });
    const sub = 'eip155:1:0x00000000000000000000000000000000000000a1';
    expect(JSON.parse(stdout)).toEqual({
      sub,
      refused: 'WRONG_AUDIENCE',
      metadata: { resource: RESOURCE, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'] },
      challenge: 'Bearer resource_metadata="http://127.0.0.1:9999/.well-known/oauth-protected-resource/mcp"',
      body: { sub },
    });
  });

  it('type-checks a consumer against the shipped declarations', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `
import { type AccessToken, createResourceServer, isResourceServerError, type ResourceServerErrorCode } from '@signet/resource-server';
import { requireBearer, type AuthenticatedRequest } from '@signet/resource-server/node';
import { createServer } from 'node:http';
const rs = createResourceServer({ issuer: 'https://id.example.com', resource: 'https://mcp.example.com/mcp', scopes: ['mcp'] });
const bearer = requireBearer(rs, { scopes: ['write'] });
createServer(async (req: AuthenticatedRequest, res) => {
  const token: AccessToken | undefined = await bearer(req, res);
  if (token) res.end(token.subject + ' ' + token.claims.client_id + ' ' + String(req.auth?.expiresAt));
});
export async function check(token: string): Promise<ResourceServerErrorCode | string> {
  try {
    return (await rs.verifyAccessToken(token)).subject;
  } catch (error) {
    return isResourceServerError(error) ? error.code : 'unknown';
  }
}
// @ts-expect-error resource is required
createResourceServer({ issuer: 'https://id.example.com' });
`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typesNode = join(ROOT, 'node_modules', '@types');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
    ];
    expect(() =>
      run(process.execPath, [tsc, ...args, '--typeRoots', typesNode, '--types', 'node', 'consumer.ts'], project),
    ).not.toThrow();
  }, 120_000);
});
