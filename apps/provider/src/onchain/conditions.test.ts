import { formatEther as viemFormatEther } from 'viem';
import { describe, expect, it } from 'vitest';
import { describeCondition, formatEther } from './conditions.ts';

describe('access conditions in words', () => {
  it("writes wei in ether as viem's formatEther does", () => {
    const values = [
      0n,
      1n,
      10n,
      10n ** 17n,
      10n ** 18n,
      15n * 10n ** 17n,
      123456789012345678901234567890n,
      2n ** 255n,
      -5n,
      -(10n ** 18n),
    ];
    for (let i = 0n; i < 50n; i++) values.push(i * 7919n ** (i % 6n) * 10n ** (i % 20n));
    for (const wei of values) expect({ wei, ether: formatEther(wei) }).toEqual({ wei, ether: viemFormatEther(wei) });
  });

  it('names a contract by its checksummed address and native amounts in ether and wei', () => {
    const contract = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    expect(describeCondition({ type: 'erc20', chainId: 1, contract, minimum: '5' })).toBe(
      'at least 5 base units of the ERC-20 token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 on chain 1',
    );
    expect(describeCondition({ type: 'native', chainId: 10, minimum: '1500000000000000000' })).toBe(
      'at least 1.5 of the native currency (1500000000000000000 wei) on chain 10',
    );
  });
});
