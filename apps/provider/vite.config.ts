import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { PAGE_SCRIPT_BUDGET_GZIP, pageScriptSizes } from './web/size.ts';

/** Prints the page's script size after the build, and fails it over the budget. */
function sizeReport(): Plugin {
  return {
    name: 'signet-page-size',
    apply: 'build',
    closeBundle() {
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      for (const [page, entry] of [
        ['wallet page', 'src/interaction.ts'],
        ['account page', 'src/account.ts'],
      ] as const) {
        const sizes = pageScriptSizes(resolve(import.meta.dirname, 'web', 'dist'), entry);
        console.log(
          `${page}: ${kb(sizes.initial.gzipBytes)} gzipped JavaScript with the page (budget ${kb(PAGE_SCRIPT_BUDGET_GZIP)}), ` +
            `${kb(sizes.onDemand.gzipBytes)} on demand (WalletConnect, Solana and Bitcoin signing, passkeys)`,
        );
        if (sizes.initial.gzipBytes > PAGE_SCRIPT_BUDGET_GZIP) {
          throw new Error(
            `the ${page} loads ${kb(sizes.initial.gzipBytes)} of gzipped JavaScript, over its ${kb(PAGE_SCRIPT_BUDGET_GZIP)} budget`,
          );
        }
      }
    },
  };
}

// The wallet sign-in page: one small script and one stylesheet, content-hashed, with a
// manifest the server reads to link them. `npm install` runs this build.
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: '/assets/',
  publicDir: false,
  logLevel: 'warn',
  plugins: [sizeReport()],
  build: {
    outDir: resolve(import.meta.dirname, 'web', 'dist'),
    emptyOutDir: true,
    manifest: true,
    assetsDir: '',
    target: 'es2022',
    reportCompressedSize: true,
    rollupOptions: {
      input: {
        interaction: resolve(import.meta.dirname, 'web', 'src', 'interaction.ts'),
        account: resolve(import.meta.dirname, 'web', 'src', 'account.ts'),
        signet: resolve(import.meta.dirname, 'web', 'src', 'signet.css'),
      },
    },
  },
});
