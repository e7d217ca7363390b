import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('@signet/siwb/message', () => {
  it('bundles for browsers: no Node built-ins, no transactions, no secp256k1, a few KB', async () => {
    const result = await build({
      entryPoints: [new URL('./message-entry.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      minify: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['@signet/source'],
      logLevel: 'silent',
      metafile: true,
    });
    const code = result.outputFiles[0]?.text ?? '';
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /btc-signer|curves|secp256k1|node:/.test(path))).toEqual([]);
    expect(code).not.toMatch(/node:|TapTweak|BIP0322/);
    // The one CAIP-122 writer (@signet/siwe/caip122) with this namespace in its slot.
    expect(code).toContain(' wants you to sign in with your ');
    expect(code).toContain('kind:"Bitcoin"');
    // About 11 KB: bech32 and base58check (@scure/base, with @noble/hashes' SHA-256) are most of
    // it. The wallet page's initial budget is 12 KB gzipped, so a page loads this on demand, as
    // it loads Solana signing; it must stay under that budget on its own.
    expect(gzipSync(code).length).toBeLessThan(12_000);
  });
});
