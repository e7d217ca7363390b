#!/usr/bin/env node
/**
 * After `npm install`: build everything (`npm run build`), so `npm start`, `npm run provider`
 * and the `signet` executable work at once. A production tree installed without devDependencies
 * has no compiler: then there is nothing to build here (build before pruning; see docs/operating.md, "Production install").
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
if (!existsSync(join(root, 'node_modules', 'typescript')) || !existsSync(join(root, 'node_modules', 'vite'))) {
  console.log(
    'postinstall: no TypeScript/Vite here (a production install): skipping the build; run `npm run build` before pruning',
  );
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
