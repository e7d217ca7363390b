/**
 * The documentation's links hold: every relative link in README, CONTRIBUTING, SECURITY, the
 * CHANGELOG, docs/ and each workspace's README names a file that exists, and every `#anchor` names
 * a heading (or an `<a id>` / `<a name>`) of the file it points into, spelled as GitHub spells
 * heading ids. Pages move and headings get renamed; a reader following a link should still land
 * where the writer meant. Absolute http(s) links are not fetched (no network here).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The workspace folders, from the root package.json's `workspaces` (`dir/*` or `dir`). */
function workspaces(): string[] {
  const { workspaces: globs } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(join(ROOT, parent))
      .filter((name) => existsSync(join(ROOT, parent, name, 'package.json')))
      .map((name) => `${parent}/${name}`);
  });
}

/** The pages whose links are checked, relative to the repository root. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const readmes = workspaces()
    .map((dir) => `${dir}/README.md`)
    .filter((file) => existsSync(join(ROOT, file)));
  return ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md', ...docs, ...readmes, 'deploy/tls/README.md'];
}

/** The text with fenced code blocks blanked (line count kept), so `# a comment` in a shell block is no heading. */
function withoutFences(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        const closes = marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker;
        if (closes) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** GitHub's id for a heading's text: lower case, markup and punctuation dropped (but `-` and `_`), spaces to `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/[`*]/g, ''); // code spans and emphasis
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: heading ids (duplicates numbered `-1`, `-2`, …) and `<a id>` / `<a name>`. */
function anchors(markdown: string): Set<string> {
  const text = withoutFences(markdown);
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of text.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) found.add(match[1] as string);
  return found;
}

/** Every link target of a page outside code: `[text](target)`, `[label]: target`, `src=` / `href=` of HTML. */
function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  withoutFences(markdown)
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.replace(/(`+)[^`]*?\1/g, ''); // code spans
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
        ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]),
        ...[...line.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]),
      ];
      for (const target of targets) if (target) found.push({ line: index + 1, target });
    });
  return found;
}

/** What is wrong with each relative link of `page` (empty when every one holds). */
function brokenLinks(page: string): string[] {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  const broken: string[] = [];
  for (const { line, target } of links(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: not fetched
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const file = path === '' ? join(ROOT, page) : path.startsWith('/') ? join(ROOT, path) : join(ROOT, dirname(page), path);
    const where = `${page}:${line}: ${target}`;
    if (!existsSync(file)) {
      broken.push(`${where} (no file ${relative(ROOT, file)})`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(file).isDirectory() || !file.endsWith('.md')) {
      broken.push(`${where} (an anchor into ${relative(ROOT, file)}, which has no headings to name)`);
      continue;
    }
    if (!anchors(readFileSync(file, 'utf8')).has(anchor))
      broken.push(`${where} (no heading #${anchor} in ${relative(ROOT, file)})`);
  }
  return broken;
}

describe('documentation links', () => {
  it('anchors are spelled as GitHub spells heading ids', () => {
    expect(slug('The `signet` CLI')).toBe('the-signet-cli');
    expect(slug('Gate a client: only holders may sign in')).toBe('gate-a-client-only-holders-may-sign-in');
    expect(slug('Discourse (`discourse-openid-connect`, configuration only)')).toBe(
      'discourse-discourse-openid-connect-configuration-only',
    );
    expect(slug('Features: what oidc-provider turns on, and what Signet decided')).toBe(
      'features-what-oidc-provider-turns-on-and-what-signet-decided',
    );
    expect(slug('[Sign in](x.md) with `SOLANA_NETWORKS` & more')).toBe('sign-in-with-solana_networks--more');
    expect([...anchors('# A\n\n## A\n\n```sh\n# not a heading\n```\n\n### A\n<a id="here"></a>\n')]).toEqual([
      'a',
      'a-1',
      'a-2',
      'here',
    ]);
    expect(links('[a](b.md#c) `[no](code.md)` <img src="d.png"> [x](https://e.example)\n```\n[no](f.md)\n```')).toEqual([
      { line: 1, target: 'b.md#c' },
      { line: 1, target: 'https://e.example' },
      { line: 1, target: 'd.png' },
    ]);
  });

  it('every workspace has its own README', () => {
    const missing = workspaces().filter((dir) => !existsSync(join(ROOT, dir, 'README.md')));
    expect(missing).toEqual([]);
  });

  it.each(pages())('%s: every relative link names a file that exists, and every #anchor a heading in it', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});
