/**
 * The repository stands alone: a fresh clone, with nothing beside it, runs every command and test.
 * No tracked file reads a path outside the repository (a folder beside it, a parent's file), and
 * none names one for a reader to follow. Checked over every file git tracks:
 *
 *  - a path built from the file's own folder (`join(import.meta.dirname, '..', …)`,
 *    `resolve(__dirname, …)`, `new URL('../…', import.meta.url)`) or written as a relative string
 *    (`'../../x'`) must resolve inside the repository;
 *  - no text names a sibling folder of the repository as `../<name>/` from the root (as a link, a
 *    command or a path).
 *
 * Imports are relative strings too, so they are checked by the same rule.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

// This file is left out: its examples are the paths the checks look for.
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && !file.endsWith('package-lock.json') && file !== 'e2e/stands-alone.test.ts');
const CODE = /\.(?:[cm]?[jt]sx?|json|sh|ya?ml|html|css)$|^\.ci\/run$|(?:^|\/)Dockerfile$/;
const TEXT = /\.(?:md|txt)$/;

const inside = (path: string) => {
  const rel = relative(ROOT, path);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || resolve(rel) === rel);
};

/** Every path a file builds from its own folder or writes as a relative string, resolved. */
function pathsOf(file: string, text: string): { written: string; resolved: string }[] {
  const dir = dirname(join(ROOT, file));
  const found: { written: string; resolved: string }[] = [];
  // join/resolve(import.meta.dirname | __dirname, 'a', 'b', …): the literal segments that follow.
  for (const match of text.matchAll(/(?:join|resolve)\(\s*(?:import\.meta\.dirname|__dirname)((?:\s*,\s*(['"`])[^'"`$]*\2)+)/g)) {
    const segments = [...(match[1] ?? '').matchAll(/(['"`])([^'"`$]*)\1/g)].map((m) => m[2] ?? '');
    found.push({ written: match[0], resolved: join(dir, ...segments) });
  }
  // new URL('<relative>', import.meta.url)
  for (const match of text.matchAll(/new URL\(\s*(['"`])([^'"`$]+)\1\s*,\s*import\.meta\.url/g)) {
    found.push({ written: match[0], resolved: join(dir, match[2] ?? '') });
  }
  // Any relative string literal that climbs ('../x', "../../y").
  for (const match of text.matchAll(/(['"`])((?:\.\.\/)+[^'"`\s$]*)\1/g)) {
    found.push({ written: match[0], resolved: join(dir, match[2] ?? '') });
  }
  return found;
}

describe('the repository stands alone', () => {
  it('no tracked file builds or writes a path that leaves the repository', () => {
    const outside: string[] = [];
    for (const file of tracked.filter((f) => CODE.test(f))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const { written, resolved } of pathsOf(file, text)) {
        if (!inside(resolved)) outside.push(`${file}: ${written.replace(/\s+/g, ' ')} → ${relative(ROOT, resolved)}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('no page, comment or command names a folder beside the repository', () => {
    const named: string[] = [];
    for (const file of tracked.filter((f) => CODE.test(f) || TEXT.test(f))) {
      const dir = dirname(join(ROOT, file));
      const text = readFileSync(join(ROOT, file), 'utf8');
      // A relative link or path in prose: ](../../x), `../x/`, "see ../x".
      for (const match of text.matchAll(/(?:\]\(|`|\s|^)((?:\.\.\/)+[\w.-]+)/gm)) {
        const resolved = join(dir, match[1] ?? '');
        if (!inside(resolved)) named.push(`${file}: ${match[1]}`);
      }
    }
    expect(named).toEqual([]);
  });

  it('the checks see what they are for: a path out of the repository is found, one inside is not', () => {
    const found = (file: string, text: string) => pathsOf(file, text).filter(({ resolved }) => !inside(resolved));
    expect(
      found('packages/siwe/src/x.test.ts', "join(import.meta.dirname, '..', '..', '..', '..', 'elsewhere', 'v')"),
    ).not.toEqual([]);
    expect(found('packages/siwe/src/x.test.ts', "join(import.meta.dirname, '..', 'test', 'vectors')")).toHaveLength(0);
    // Fixture texts made of parts, so that this file itself names no path outside the repository.
    const up = (...parts: string[]) => ['..', '..', ...parts].join('/');
    expect(found('e2e/x.test.ts', `new URL('${up('elsewhere', 'other.md')}', import.meta.url)`)).not.toEqual([]);
    expect(found('e2e/x.test.ts', `readFileSync('${up('beside', 'a.md')}')`)).not.toEqual([]);
    expect(found('apps/provider/src/a/b.ts', "import { x } from '../../c.ts';")).toHaveLength(0);
  });
});
