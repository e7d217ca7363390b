import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The wallet sign-in page: one small script and one stylesheet, content-hashed, with a
// manifest the server reads to link them. `npm install` runs this build.
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: '/assets/',
  publicDir: false,
  logLevel: 'warn',
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
        signet: resolve(import.meta.dirname, 'web', 'src', 'signet.css'),
      },
    },
  },
});
