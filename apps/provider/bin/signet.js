#!/usr/bin/env node
// The `signet` command: runs the TypeScript CLI through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { cliMain } = await import('../src/cli.ts');
cliMain();
