/**
 * Imports run one way (`npm run lint` runs this). Two kinds of rule:
 *
 * - no cycles anywhere in the repository, type-only imports included;
 * - layers: libraries below applications, and inside the provider (apps/provider/src) each
 *   folder imports only folders of its own layer or below (docs/ARCHITECTURE.md, "Layers"; each
 *   folder's README.md says what it owns and what it may import).
 */
const SRC = '^apps/provider/src/';
/** The provider's layers, lowest first. `config.ts` is the settings: every layer may import it. */
const LAYERS = [
  ['runtime', 'outbound', 'deployment', 'wallets'],
  ['storage'],
  ['records', 'observability'],
  ['errors.ts', 'http'],
  ['clients', 'onchain', 'accounts'],
  ['relying-party', 'redirects', 'device', 'resources', 'refresh'],
  ['signin'],
  ['oidc', 'account-page', 'login', 'passkeys', 'agents'],
  ['cli', 'app.ts', 'cli.ts', 'server.ts', 'bin.ts', 'index.ts', 'services.ts'],
];
const paths = (names) => `${SRC}(${names.map((n) => n.replace('.', '[.]') + (n.endsWith('.ts') ? '$' : '/')).join('|')})`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `provider-layer-${i}`,
  severity: 'error',
  comment: `${layer.join(', ')} may import only their own layer or below (${LAYERS.slice(0, i).flat().join(', ') || 'nothing but config.ts'})`,
  from: { path: paths(layer), pathNot: '\\.test\\.ts$' },
  to: {
    path: paths(LAYERS.slice(i + 1).flat()),
    // The sign-in and account routes take the services app.ts builds (a type made only of lower layers' types).
    pathNot: i >= 6 ? `${SRC}services[.]ts$` : undefined,
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports (type-only imports count).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'provider-config-reads-only-parsers',
      severity: 'error',
      comment:
        'config.ts sits below everything: it may use the STORAGE_URL parsers (pure functions of a string), nothing else of the provider; the setting types other folders need (AuditDestination, LogFormat) live in config.ts.',
      from: { path: `${SRC}config[.]ts$` },
      to: {
        path: SRC,
        pathNot: `${SRC}storage/(redis/redis|postgres/postgres)-url[.]ts$`,
      },
    },
    ...layerRules,
    {
      name: 'libraries-below-applications',
      severity: 'error',
      comment: 'packages/* never import an app, an example, the benchmarks or the end-to-end tests.',
      // testkit drives the provider in tests: it is the one library above it.
      from: { path: '^packages/', pathNot: '^packages/testkit/' },
      to: { path: '^(apps|examples|bench|e2e)/' },
    },
    {
      name: 'resource-server-stands-alone',
      severity: 'error',
      comment: '@signet/resource-server is published on its own: it imports no other workspace (jose and Node only).',
      from: { path: '^packages/resource-server/src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(apps|examples|bench|e2e|packages/(?!resource-server/))' },
    },
    {
      name: 'apps-independent',
      severity: 'error',
      comment: 'The reference client and the examples never reach into the provider (they are its relying parties and peers).',
      from: { path: '^(apps/client|examples/[^/]+)/src/' },
      to: { path: '^apps/provider/' },
    },
    {
      name: 'test-parts-only-in-tests',
      severity: 'error',
      comment: 'testkit and testchain are for tests: no shipped source imports them.',
      from: {
        path: '^(apps|examples|packages/(siwe|siws|siwb|settings|ratelimit|hono-kit|resource-server))/[^/]+/src/',
        pathNot: '\\.test\\.ts$|/testkit|signers[.]testkit',
      },
      to: { path: '^packages/(testkit|testchain)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@signet/source', 'import', 'node', 'default'],
      extensions: ['.ts', '.mts', '.js', '.mjs'],
    },
  },
};
