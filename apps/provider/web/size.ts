/**
 * The wallet page's JavaScript size, from Vite's manifest: what loads with the page (the entry
 * and its static imports), and what loads only on demand (dynamic imports: WalletConnect, passkeys, Solana and
 * Bitcoin signing).
 * The build reports it and fails over the budget; `npm run bench` records it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The budget for everything the page loads before any optional chunk: the Ethereum sign-in and
 * Solana and Bitcoin wallet discovery; Solana and Bitcoin signing, passkeys and WalletConnect load on demand.
 */
export const PAGE_SCRIPT_BUDGET_GZIP = 12 * 1024;

type Manifest = Record<string, { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] }>;

export type PageScriptSizes = {
  initial: { files: string[]; bytes: number; gzipBytes: number };
  onDemand: { files: string[]; bytes: number; gzipBytes: number };
};

export function pageScriptSizes(dist: string, entry = 'src/interaction.ts'): PageScriptSizes {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const initial = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || initial.has(chunk.file)) return;
    initial.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entry);
  const onDemand = new Set<string>();
  const visitLazy = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || initial.has(chunk.file) || onDemand.has(chunk.file)) return;
    onDemand.add(chunk.file);
    for (const imported of [...(chunk.imports ?? []), ...(chunk.dynamicImports ?? [])]) visitLazy(imported);
  };
  for (const chunk of Object.values(manifest)) for (const lazy of chunk.dynamicImports ?? []) visitLazy(lazy);
  const measure = (files: Set<string>) => {
    let bytes = 0;
    let gzipBytes = 0;
    for (const file of files) {
      const content = readFileSync(join(dist, file));
      bytes += content.length;
      gzipBytes += gzipSync(content, { level: 9 }).length;
    }
    return { files: [...files], bytes, gzipBytes };
  };
  return { initial: measure(initial), onDemand: measure(onDemand) };
}
