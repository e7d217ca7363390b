/**
 * One source of truth for settings: docs/configuration.md, the apps' READMEs and .env.example are
 * rendered from the descriptions beside each setting's validation, and must be what
 * `npm run docs:settings` renders now; every variable the provider reads has a description.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '@signet/provider';
import { describe, expect, it } from 'vitest';
import { settingsReference } from '../apps/provider/src/config.ts';
import { settingsPages, stalePages } from '../scripts/settings-reference.ts';

const ROOT = join(import.meta.dirname, '..');

describe('settings reference (npm run docs:settings)', () => {
  it('docs/configuration.md, the apps’ READMEs and .env.example are what the code’s descriptions render (run npm run docs:settings)', () => {
    expect(stalePages()).toEqual([]);
  });

  it('every variable the provider reads is documented once, with a group, a default and words', () => {
    const names = settingsReference().map((entry) => entry.name);
    expect([...names].sort()).toEqual([...SETTING_NAMES].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const { name, doc } of settingsReference()) {
      expect(doc.description.length, name).toBeGreaterThan(10);
      expect(doc.default.length, name).toBeGreaterThan(0);
    }
  });

  it('a description changed in the code changes the page (the check can fail)', () => {
    const page = settingsPages().get('docs/configuration.md') as string;
    expect(page).toContain('| `RATE_LIMIT_TOKEN` | `600` |');
    const committed = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    expect(committed.replace('| `RATE_LIMIT_TOKEN` | `600` |', '| `RATE_LIMIT_TOKEN` | `601` |')).not.toBe(page);
  });
});
