import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('@signet/siws/message', () => {
  it('bundles for browsers: no Node built-ins, no Ed25519, a few KB', async () => {
    const result = await build({
      entryPoints: [new URL('./message-entry.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      minify: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['@signet/source'],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/node:|ed25519|createPublicKey/);
    // The one CAIP-122 writer (@signet/siwe/caip122) with this namespace in its slot.
    expect(code).toContain(' wants you to sign in with your ');
    expect(code).toContain('kind:"Solana"');
    // The wallet page's budget is 12 KB gzipped for everything it loads; this part must stay small.
    expect(gzipSync(code).length).toBeLessThan(8_000);
  });
});
