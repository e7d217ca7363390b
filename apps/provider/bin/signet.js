#!/usr/bin/env node
// The `signet` command: runs the built provider (dist/, made by `npm run build`, which
// `npm install` runs) in this very process, so SIGTERM reaches the server itself.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('signet: the provider is not built yet: run `npm run build` (npm install does it)');
  process.exit(70);
}
const { signetMain } = await import(entry.href);
await signetMain();
