/**
 * docs/recipes.md stays true: the run recipes' code in the document is the code the recipe test
 * runs, and every configuration-only recipe names only URLs, scopes and claims that a live
 * provider's discovery document publishes (so a wrong path or an unsupported claim fails here).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestProvider } from '@signet/testkit';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'recipes.md'), 'utf8');
const ISSUER = 'https://id.example.com';
const KNOWN_CLAIMS = [
  'sub',
  'preferred_username',
  'picture',
  'name',
  'email',
  'nickname',
  'given_name',
  'family_name',
  'siwe_message',
];

/** The fenced block after each `<!-- kind: value -->` marker. */
function blocks(kind: string): { name: string; code: string }[] {
  const pattern = new RegExp(`<!-- ${kind}: (\\S+) -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``, 'g');
  return [...doc.matchAll(pattern)].map((m) => ({ name: m[1] as string, code: m[2] as string }));
}

describe('docs/recipes.md', () => {
  it('shows exactly the configuration files the recipe tests run', () => {
    const files = blocks('recipe-file');
    expect(files.map((f) => f.name).sort()).toEqual([
      'e2e/recipes/authjs.config.ts',
      'e2e/recipes/better-auth.config.ts',
      'e2e/recipes/express-openid-connect.config.ts',
      'e2e/recipes/go-oidc/main.go',
      'e2e/recipes/hono-oidc-auth.config.ts',
      'e2e/recipes/next-auth.config.ts',
      'e2e/recipes/omniauth/app.rb',
      'e2e/recipes/spa/app.js',
    ]);
    for (const { name, code } of files) expect(code.trim()).toBe(readFileSync(join(ROOT, name), 'utf8').trim());
  });

  it('configuration-only recipes name only endpoints, scopes and claims the provider publishes', async () => {
    const provider = await startTestProvider({ ISSUER });
    try {
      const { port } = provider.server.address() as AddressInfo;
      const discovery = (await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
      const published = new Set([
        discovery.issuer,
        `${ISSUER}/.well-known/openid-configuration`,
        ...Object.values(discovery).filter((v) => typeof v === 'string' && v.startsWith(ISSUER)),
      ]);
      const scopes = discovery.scopes_supported as string[];
      const claims = discovery.claims_supported as string[];
      const recipes = blocks('config-recipe');
      expect(recipes.map((r) => r.name).sort()).toEqual([
        'authentik',
        'discourse',
        'grafana',
        'keycloak',
        'kubelogin',
        'nextcloud',
        'synapse',
      ]);
      for (const { name, code } of recipes) {
        const urls = [...code.matchAll(/https:\/\/id\.example\.com[^\s"'<>)\]\\,]*/g)].map((m) => m[0]);
        expect({ name, urls: urls.length > 0 }).toEqual({ name, urls: true });
        for (const url of urls) expect({ name, url, published: published.has(url) }).toEqual({ name, url, published: true });
        for (const line of code.split('\n')) {
          const value = line.replace(/^[^:=]*[:=]/, '');
          if (/scope/i.test(line)) {
            for (const scope of value.match(/[a-z_]+/g) ?? [])
              expect({ name, scope, supported: scopes.includes(scope) }).toEqual({ name, scope, supported: true });
          }
          if (/attribute_path|claim|mapping|template|matching|Mapper/i.test(line)) {
            for (const word of (value.match(/(?<![-\w])[a-z_]+(?![-\w])/g) ?? []).filter((w) => KNOWN_CLAIMS.includes(w)))
              expect({ name, claim: word, supported: claims.includes(word) }).toEqual({ name, claim: word, supported: true });
          }
        }
      }
      // Grafana's recipe maps the email claim: the provider publishes it (self-hosted default).
      expect(claims).toEqual(expect.arrayContaining(['email', 'email_verified']));
      expect(scopes).toContain('email');
    } finally {
      await provider.stop();
    }
  });
});
