import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (the "@signet/source"
// export condition); plain node runs the built JavaScript in dist/. No "module" condition: it
// names bundler-only builds (OpenTelemetry's `build/esm` imports files without extensions,
// which Node cannot load), and tests load packages as Node does.
const conditions = ['@signet/source', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@signet/source'] } },
  test: {
    include: ['packages/**/*.test.ts', 'apps/**/*.test.ts', 'examples/**/*.test.ts', 'e2e/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
