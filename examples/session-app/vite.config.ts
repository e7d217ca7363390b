import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The try-it page's script and stylesheet, at fixed names (served with no-cache).
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(import.meta.dirname, 'web', 'dist'),
    emptyOutDir: true,
    assetsDir: '',
    target: 'es2022',
    rollupOptions: {
      input: {
        app: resolve(import.meta.dirname, 'web', 'src', 'app.ts'),
        style: resolve(import.meta.dirname, 'web', 'src', 'app.css'),
      },
      output: { entryFileNames: '[name].js', assetFileNames: '[name][extname]' },
    },
  },
});
