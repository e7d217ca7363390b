/**
 * Nothing in discovery that nobody decided: every feature oidc-provider enables by default has
 * its row in docs/conformance.md ("Features"), and discovery on each profile holds exactly the
 * fields listed there ("Discovery fields"). An upgrade of oidc-provider that turns a new feature
 * on, or a change that makes discovery advertise something new, fails here until it is decided
 * and documented.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestProvider } from '@signet/testkit';
import { describe, expect, it } from 'vitest';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'conformance.md'), 'utf8');

/** The rows of the first table after `heading`, as arrays of cells. */
function tableAfter(heading: string): string[][] {
  const start = DOC.indexOf(`\n${heading}\n`);
  expect(start, `docs/conformance.md has no "${heading}"`).toBeGreaterThan(-1);
  const lines = DOC.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

/** oidc-provider's own defaults (lib/helpers/defaults.js), read from the installed package. */
async function oidcProviderFeatures(): Promise<Record<string, { enabled: boolean }>> {
  const root = dirname(createRequire(import.meta.url).resolve('oidc-provider/package.json'));
  const { defaults } = await import(pathToFileURL(join(root, 'lib', 'helpers', 'defaults.js')).href);
  return defaults.features;
}

describe('discovery and the documented features', () => {
  it('every feature oidc-provider enables by default is decided in docs/conformance.md, and every feature it has is named', async () => {
    const features = await oidcProviderFeatures();
    const rows = tableAfter('### Features');
    const documented = new Map<string, { defaultOn: string; signet: string }>();
    for (const [feature, defaultOn, signet] of rows) {
      for (const name of names(feature as string))
        documented.set(name, { defaultOn: defaultOn as string, signet: signet as string });
    }
    for (const [name, { enabled }] of Object.entries(features)) {
      expect(documented.has(name), `oidc-provider feature ${name} is not in docs/conformance.md "Features"`).toBe(true);
      expect(documented.get(name)?.defaultOn, `${name}: oidc-provider's default`).toBe(enabled ? 'on' : 'off');
    }
    const enabledByDefault = Object.entries(features)
      .filter(([, f]) => f.enabled)
      .map(([name]) => name)
      .sort();
    // The ones this round decided, named so a new default-on feature cannot slip into the list unseen.
    expect(enabledByDefault).toEqual([
      'dPoP',
      'devInteractions',
      'pushedAuthorizationRequests',
      'resourceIndicators',
      'rpInitiatedLogout',
      'userinfo',
    ]);
  });

  it.each(['self-hosted', 'hosted'])('discovery on the %s profile holds exactly the documented fields', async (profile) => {
    const column = profile === 'self-hosted' ? 1 : 2;
    const expected = tableAfter('### Discovery fields')
      .filter((row) => row[column] === 'yes')
      .flatMap((row) => names(row[0] as string))
      .sort();
    const provider = await startTestProvider({ PROFILE: profile });
    try {
      const discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
      expect(Object.keys(discovery).sort()).toEqual(expected);
      // What the features table says is off is not advertised.
      for (const field of [
        'frontchannel_logout_supported',
        'request_parameter_supported',
        'backchannel_authentication_endpoint',
      ]) {
        expect(discovery[field] ?? false, field).toBe(false);
      }
      // The device flow is on (docs/conformance.md): its endpoint and its grant on both profiles.
      expect(discovery.device_authorization_endpoint).toBe(`${provider.url}/device/auth`);
      expect(discovery.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
    } finally {
      await provider.stop();
    }
  });

  it.each([
    ['hosted', 'true', ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'], true],
    ['self-hosted', 'false', ['none', 'client_secret_basic', 'client_secret_post'], undefined],
  ])(
    'CLIENT_ID_METADATA_DOCUMENTS on %s set to %s: the methods a document may resolve to are listed, and only then',
    async (profile, on, methods, supported) => {
      const provider = await startTestProvider({ PROFILE: profile, CLIENT_ID_METADATA_DOCUMENTS: on });
      try {
        const discovery = await (await fetch(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)).json();
        expect(discovery.token_endpoint_auth_methods_supported).toEqual(methods);
        expect(discovery.client_id_metadata_document_supported).toBe(supported);
      } finally {
        await provider.stop();
      }
    },
  );
});
