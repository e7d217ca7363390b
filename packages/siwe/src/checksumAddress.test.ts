import { checksumAddress as viemChecksum } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { checksumAddress } from './checksumAddress.ts';

describe('checksumAddress', () => {
  it("spells EIP-55's own examples as the EIP does", () => {
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(checksumAddress(address.toLowerCase())).toBe(address);
      expect(checksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
    }
  });

  it('agrees with viem with the WebAssembly keccak a server hands in (keccak256.ts, once ready)', async () => {
    const { keccakReady } = await import('./keccak256.ts');
    expect(await keccakReady).toBe('wasm');
    for (let i = 0; i < 1000; i++) {
      const address = privateKeyToAddress(generatePrivateKey()).toLowerCase() as `0x${string}`;
      expect(checksumAddress(address)).toBe(viemChecksum(address));
    }
  });

  it('agrees with viem on a thousand random addresses', () => {
    for (let i = 0; i < 1000; i++) {
      const address = privateKeyToAddress(generatePrivateKey()).toLowerCase() as `0x${string}`;
      expect(checksumAddress(address)).toBe(viemChecksum(address));
    }
  });
});

describe('checksumAddress, spellings held', () => {
  it('answers the same spelling from what it holds, for any case given, past its bound too', () => {
    const addresses = Array.from({ length: 5000 }, () => privateKeyToAddress(generatePrivateKey()));
    for (const round of [0, 1]) {
      for (const address of addresses) {
        expect(checksumAddress(address.toLowerCase()), `round ${round}`).toBe(address);
        expect(checksumAddress(`0x${address.slice(2).toUpperCase()}`), `round ${round}`).toBe(address);
      }
    }
  });
});
