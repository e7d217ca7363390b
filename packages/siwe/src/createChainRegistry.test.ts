import { describe, expect, it } from 'vitest';
import { createChainRegistry } from './createChainRegistry.ts';

describe('createChainRegistry', () => {
  it('has one client per configured chain, bound to that chain', () => {
    const registry = createChainRegistry({ 1: 'https://eth.example', 137: 'https://polygon.example' });
    expect([...registry.chainIds].sort()).toEqual([1, 137]);
    expect(registry.get(137)?.chain?.id).toBe(137);
    expect(registry.get(10)).toBeUndefined();
  });
});
