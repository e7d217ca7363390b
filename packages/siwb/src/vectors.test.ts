/**
 * BIP-322's own test vectors (bitcoin/bips: the BIP's text, bip-0322/basic-test-vectors.json
 * and bip-0322/generated-test-vectors.json), and Bitcoin Core's Taproot vector (util_tests.cpp),
 * each with what this package does with it and, where it refuses a vector the BIP accepts, why.
 *
 * - Message hashes and the to_spend / to_sign txids: reproduced.
 * - Simple signatures for P2WPKH and P2TR: verified. P2WSH (multisig) addresses: refused
 *   (UNSUPPORTED_ADDRESS_TYPE): this package signs in single keys only.
 * - The later revision's "smp" / "ful" prefixes are not read: a signature is plain base64 here,
 *   as wallets send it. The prefixed vectors are checked with the prefix taken off.
 * - Full signatures: every one in the BIP sets version 2, lock time 2016 and sequence 2016 (time
 *   locks), which the single-input template forbids: refused (MALFORMED_SIGNATURE), though valid
 *   (shown by checking their signature hashes here); the P2PKH one is refused because P2PKH
 *   signs with BIP-137 only (SIGNATURE_TYPE_MISMATCH).
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { Address, NETWORK, OutScript, p2pkh, Transaction, WIF } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import { bip322MessageHash, bip322ToSign, bip322ToSpend } from './bip322.ts';
import { SiwbError, type SiwbErrorType } from './errors.ts';
import { addressOf, testKey } from './signers.testkit.ts';
import { verifyBitcoinSignature } from './verifyBitcoinSignature.ts';

const refusal = (address: string, message: string, signature: string): SiwbErrorType => {
  try {
    verifyBitcoinSignature(address, message, signature);
  } catch (error) {
    expect(error).toBeInstanceOf(SiwbError);
    return (error as SiwbError).type;
  }
  throw new Error('expected a refusal');
};
const scriptOf = (address: string) => OutScript.encode(Address(NETWORK).decode(address));
const keyAddress = (wif: string, type: 'p2wpkh' | 'p2tr' | 'p2pkh' | 'p2sh-p2wpkh') =>
  addressOf(testKey(WIF().decode(wif)), type);

const ADDRESS = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
const WIF_KEY = 'L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k';

describe('BIP-322: message hashes and transaction ids', () => {
  const vectors = [
    {
      message: '',
      hash: 'c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1',
      toSpend: 'c5680aa69bb8d860bf82d4e9cd3504b55dde018de765a91bb566283c545a99a7',
      toSign: '1e9654e951a5ba44c8604c4de6c67fd78a27e81dcadcfe1edf638ba3aaebaed6',
    },
    {
      message: 'Hello World',
      hash: 'f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a',
      toSpend: 'b79d196740ad5217771c1098fc4a4b51e0535c32236c71f1ea4d61a2d603352b',
      toSign: '88737ae86f2077145f93cc4b153ae9a1cb8d56afa511988c149c5c8c9d93bddf',
    },
    {
      message: 'UTF-8 support: öäüéàè 测试文本 \u{1F604}',
      hash: '43936b237ea38c7794eb5d755e0d220b6db92ebfc5c8f482759d22b1286376d7',
      toSpend: 'c8f4f525fe8afb1bc09b44175bd2096f079c98425e8a1be676b712add1fb62f0',
      toSign: '8f488e06b89eafd019ec528109eafaf7f1d1811fd617aa1eeb9658f1c1be6586',
    },
  ];
  for (const { message, hash, toSpend, toSign } of vectors) {
    it(`${JSON.stringify(message)}: the tagged hash, to_spend and to_sign (address ${ADDRESS})`, () => {
      expect(hex.encode(bip322MessageHash(message))).toBe(hash);
      const spend = bip322ToSpend(message, scriptOf(ADDRESS));
      expect(spend.id).toBe(toSpend);
      expect(bip322ToSign(spend, scriptOf(ADDRESS)).id).toBe(toSign);
    });
  }
});

const accepted: [string, string, string, string][] = [
  // [what, address, message, signature]
  [
    'P2WPKH, "" (the BIP’s first signature)',
    ADDRESS,
    '',
    'AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=',
  ],
  [
    'P2WPKH, "" (the BIP’s second signature)',
    ADDRESS,
    '',
    'AkgwRQIhAPkJ1Q4oYS0htvyuSFHLxRQpFAY56b70UvE7Dxazen0ZAiAtZfFz1S6T6I23MWI2lK/pcNTWncuyL8UL+oMdydVgzAEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
  ],
  [
    'P2WPKH, "Hello World" (first)',
    ADDRESS,
    'Hello World',
    'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=',
  ],
  [
    'P2WPKH, "Hello World" (second)',
    ADDRESS,
    'Hello World',
    'AkgwRQIhAOzyynlqt93lOKJr+wmmxIens//zPzl9tqIOua93wO6MAiBi5n5EyAcPScOjf1lAqIUIQtr3zKNeavYabHyR8eGhowEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
  ],
  [
    'P2TR, "Hello World" (Bitcoin Core’s util_tests, SIGHASH_ALL written out)',
    'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3',
    'Hello World',
    'AUHd69PrJQEv+oKTfZ8l+WROBHuy9HKrbFCJu7U1iK2iiEy1vMU5EfMtjc+VSHM7aU0SDbak5IUZRVno2P5mjSafAQ==',
  ],
  [
    'P2TR, "No prefix fallback" (basic vectors, SIGHASH_DEFAULT)',
    'bc1pss0zhytly75awhm6x2hhvd5lnzv3vssgrf9axfheq8ldyzn88ges79fler',
    'No prefix fallback',
    'AUCJYOwOjxYAvatTAGYaVlNXBVyFuc4MwNQkOuK2tl8xhfKDONd0NjfYyNSYcRqeCp8hsAnCEPHAVEkO9h6vbQ/R',
  ],
  [
    'P2WPKH (generated vectors)',
    'bc1qkntwc3c4dzxh9xh6875l03fn3vkk023jgak3u7',
    'ESHJI7MWUL64AXHBI42L3UR4QA',
    'AkcwRAIgCYHF/vn67iZX5WBimh84kqD6pTME6eNCMGhfFnnwCNECIAF3nMCk/RfLit+uv8a8FgfQIw0f0ASE21GSz7rX17PsASEDTA2vM8bOtUFgvenSDUmvkq7aWNwoTB0CMiM6carHY1s=',
  ],
  [
    'P2TR (generated vectors)',
    'bc1p9cyuceaazr8cz46mvgkzl94wy397mwpqsrk84su37t72jvkg6wzqv52nfp',
    'TPIZPITUIHEUHO5ACOL6W6MBVD',
    'AUBay6NwR4LEYedkTG+vE9F7C0RTOCB5NH6ZAqf+3hudjHIkOzSZk1jW/5Kt0wRKX3llJ25os+0qktdou4/Y8516',
  ],
];

const errors: [string, string, string, string, SiwbErrorType][] = [
  ['invalid base64', ADDRESS, '', 'not-valid-base64!!!', 'MALFORMED_SIGNATURE'],
  ['empty signature', ADDRESS, '', '', 'MALFORMED_SIGNATURE'],
  ['empty witness stack (a single zero byte)', ADDRESS, '', 'AA==', 'MALFORMED_SIGNATURE'],
  ['invalid signature prefix', ADDRESS, '', 'fooAA==', 'MALFORMED_SIGNATURE'],
  [
    'wrong message for a valid simple P2WPKH signature ("" was signed)',
    ADDRESS,
    'Wrong message that was not signed',
    (accepted[0] as string[])[3] as string,
    'INVALID_SIGNATURE',
  ],
  [
    'wrong address for a valid simple P2WPKH signature (a P2WSH multisig address)',
    'bc1qp0ahvfh83088w49k405szqgg4f3pptr7p2g06tdxfjcd40z4lh4q95lsz9',
    '',
    (accepted[0] as string[])[3] as string,
    'UNSUPPORTED_ADDRESS_TYPE',
  ],
  [
    'wrong message for a P2WPKH simple signature (generated)',
    'bc1qkntwc3c4dzxh9xh6875l03fn3vkk023jgak3u7',
    'OVKTTPEFKLUOTAOJSPCKIHCQZW',
    (accepted[6] as string[])[3] as string,
    'INVALID_SIGNATURE',
  ],
  [
    'wrong signer for a P2WPKH simple signature (generated)',
    'bc1qx3f9s3scavc92s3g2fhwzqzn7qucd37ez03jpf',
    'ESHJI7MWUL64AXHBI42L3UR4QA',
    (accepted[6] as string[])[3] as string,
    'INVALID_SIGNATURE',
  ],
  [
    'wrong message for a P2TR simple signature (generated)',
    'bc1p9cyuceaazr8cz46mvgkzl94wy397mwpqsrk84su37t72jvkg6wzqv52nfp',
    'IHUVDIXOZV7EE7RU6CP7JUS57N',
    (accepted[7] as string[])[3] as string,
    'INVALID_SIGNATURE',
  ],
  [
    'wrong signer for a P2TR simple signature (generated)',
    'bc1pr72av8sh7qc2ssxs8w0hlj0cl82g2q2dvypngzgsrmd4plml84ksmfyv0q',
    'TPIZPITUIHEUHO5ACOL6W6MBVD',
    (accepted[7] as string[])[3] as string,
    'INVALID_SIGNATURE',
  ],
  [
    'a P2WSH 2-of-2 multisig address (generated)',
    'bc1qa8xp82hejuydq8d9yc44s662ras5ncr98gxz3n53s6vklwgrczrqc4fqtn',
    'GDU6AXT64O5ZS4AHHXK5JETYRM',
    'AA==',
    'UNSUPPORTED_ADDRESS_TYPE',
  ],
];

describe('BIP-322: simple signatures', () => {
  it(`the test key ${WIF_KEY.slice(0, 8)}… is ${ADDRESS} (P2WPKH) and bc1ppv609nr0… (P2TR)`, () => {
    expect(keyAddress(WIF_KEY, 'p2wpkh')).toBe(ADDRESS);
    expect(keyAddress(WIF_KEY, 'p2tr')).toBe('bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3');
  });

  for (const [what, address, message, signature] of accepted) {
    it(`verifies ${what}`, () => {
      expect(verifyBitcoinSignature(address, message, signature)).toEqual({
        addressType: address.startsWith('bc1p') ? 'p2tr' : 'p2wpkh',
        method: 'bip322-simple',
      });
    });
  }

  it('the generated vectors’ keys are their addresses', () => {
    expect(keyAddress('L1W6mc2yYRcDCkhwhFASvvacvp6Pm4u29dxK9RJHVorXqLciTdq4', 'p2wpkh')).toBe(
      'bc1qkntwc3c4dzxh9xh6875l03fn3vkk023jgak3u7',
    );
    expect(keyAddress('L1rPtXzPkeCuXArPk5QKfaU4PCx16S2zCXnYtFSMGHiDkQyWw5fv', 'p2tr')).toBe(
      'bc1p9cyuceaazr8cz46mvgkzl94wy397mwpqsrk84su37t72jvkg6wzqv52nfp',
    );
    expect(keyAddress('KyrSGCFPhqZMjCe5fNTYddiLMp4tMj4gLKuJ26TsB2rvr1VJGPbt', 'p2tr')).toBe(
      'bc1pss0zhytly75awhm6x2hhvd5lnzv3vssgrf9axfheq8ldyzn88ges79fler',
    );
  });

  it('refuses the "smp"-prefixed form of a valid signature: the prefix is not base64 of a signature', () => {
    const [, , , signature] = accepted[0] as [string, string, string, string];
    expect(refusal(ADDRESS, '', `smp${signature}`)).toBe('MALFORMED_SIGNATURE');
  });

  for (const [what, address, message, signature, type] of errors) {
    it(`refuses ${what}: ${type}`, () => {
      expect(refusal(address, message, signature)).toBe(type);
    });
  }
});

describe('BIP-322: full signatures (all time-locked: version 2, lock time 2016, sequence 2016)', () => {
  const P2WPKH_FULL = {
    message: 'YGIAANMREUXLFRI4HIEOCE4T23',
    wif: 'KyAbLfXdznrXRfeaCQTXPzqT5k12FHwKBLKE8fk8KZ9ye7nQf1TA',
    address: 'bc1qkwzsslep5elkuat4608v7tpntpr3d9n7w5cwwq',
    signature:
      'AgAAAAABAaVatLF3wpACTG5XowFYPJPv65lgTlZypjUV9d1DNduCAAAAAADgBwAAAQAAAAAAAAAAAWoCRzBEAiB+SJdR6bVLpv5+kK8pOXSUDS24rU53YkTQEvelQJ22uwIgEfqM8eYTupu4LtA0Tz7z1LIbhpP2PrUxWEt9osnrxFEBIQMasC7JaIHbbAUt1kU81yx7S4QHScnEDBs4GsdHDPMPSuAHAAA=',
  };
  const P2TR_FULL = {
    message: 'K276VUM3MXP56DGNVICQR5XWRT',
    wif: 'KyU8wJ8ARQruQikto4GksjPKmgh8pKF5GsZVB78JPbYgPDQSQzgw',
    address: 'bc1psmjelwjtg7lz26jhd4kkf35v0xp3u7ffc6p4n4869s0hxkrrrtkqkpqvmg',
    signature:
      'AgAAAAABAY+B3hhlrps+S2YaxSvL3HxZKdfT+8XCCtZ4KQc5N+AaAAAAAADgBwAAAQAAAAAAAAAAAWoBQEHQoT3HfPKw4WNiQySblfcRX2gnha/mrpFxUoYlkJxuQFXNN3sS+XbJsNAoXRlvQitk0tVEFpsUGRcCdZ7bWPHgBwAA',
  };
  const P2SH_FULL = {
    message: 'OQXDXSR5SN5N7WRXSPTI462HKH',
    wif: 'KyS1o2pNNmd5bfw4cnhVZLJus7CFLgbYBKB3GY2KQKuWKT8remsc',
    address: '37HVPoc7ZsU5C9Z2VKcCkSLzEknYXCzm3s',
    signature:
      'AgAAAAABAbtjBsUTHnoyuNG4NGbx6cI1Z01QLlfGHJX/WIRCAU6/AAAAABcWABTGXFmsgRqCkic6D+eE4AKm1iyVhuAHAAABAAAAAAAAAAABagJHMEQCIBp/IMJTnnhI6YrHJwIQbfucoizq0esZ35QRxtpXuk7fAiAGx6kSd9BuPDY+R0sHTJU0ZFtScJI8ASojEHwrClKxDQEhAl3boe/68fHvtuYzRkaS3GOSxnUTJwejjrubm+czK+Yi4AcAAA==',
  };
  const P2PKH_FULL = {
    message: 'GI2SVNWVCWTEEIMFZFFZYAQNSA',
    wif: 'L2m4Wo96ZaFFd7cGFiv6SnCr1ntYEa6PVbfg6Z6gFCMW76ysZ6AT',
    address: '164P4mbDkPcyvRnFGAZd1ThjxSj7Fbsywz',
    signature:
      'AgAAAAGEmHuloQANVIqnpMegGLNFKwAGE0Urv0a/uMiHnJ+FQwAAAABrSDBFAiEAr8VdqPCZU/oVqKKj2WwHfeCX/lzp+Rfk8d59cS9xdGECIAar0nievDdeVstmIgjfM7kzMepL6HrecBuJtgEitFxBASECzgU8WF30ffzpbdClcw/0NBkTCkuRbiEzr+CTXePjiPfgBwAAAQAAAAAAAAAAAWrgBwAA',
  };
  const parse = (signature: string) =>
    Transaction.fromRaw(base64.decode(signature), {
      allowUnknownOutputs: true,
      allowUnknownVersion: true,
      disableScriptCheck: true,
    });

  it('their keys are their addresses', () => {
    expect(keyAddress(P2WPKH_FULL.wif, 'p2wpkh')).toBe(P2WPKH_FULL.address);
    expect(keyAddress(P2TR_FULL.wif, 'p2tr')).toBe(P2TR_FULL.address);
    expect(keyAddress(P2SH_FULL.wif, 'p2sh-p2wpkh')).toBe(P2SH_FULL.address);
    expect(keyAddress(P2PKH_FULL.wif, 'p2pkh')).toBe(P2PKH_FULL.address);
  });

  it('P2WPKH and P2TR: valid (each spends its to_spend and its signature checks under its own version and lock time) …', () => {
    const wpkh = parse(P2WPKH_FULL.signature);
    expect([wpkh.version, wpkh.lockTime, wpkh.getInput(0).sequence]).toEqual([2, 2016, 2016]);
    expect(hex.encode(wpkh.getInput(0).txid as Uint8Array)).toBe(
      bip322ToSpend(P2WPKH_FULL.message, scriptOf(P2WPKH_FULL.address)).id,
    );
    const [sig, key] = wpkh.getInput(0).finalScriptWitness as [Uint8Array, Uint8Array];
    const digest = wpkh.preimageWitnessV0(0, p2pkh(key).script, 1, 0n);
    expect(secp256k1.verify(sig.subarray(0, -1), digest, key, { prehash: false, format: 'der' })).toBe(true);

    const tr = parse(P2TR_FULL.signature);
    const script = scriptOf(P2TR_FULL.address);
    expect(hex.encode(tr.getInput(0).txid as Uint8Array)).toBe(bip322ToSpend(P2TR_FULL.message, script).id);
    const [schnorrSig] = tr.getInput(0).finalScriptWitness as [Uint8Array];
    expect(schnorr.verify(schnorrSig, tr.preimageWitnessV1(0, [script], 0, [0n]), script.subarray(2))).toBe(true);
  });

  it('… and refused here: not the single-input template (MALFORMED_SIGNATURE)', () => {
    for (const { address, message, signature } of [P2WPKH_FULL, P2TR_FULL, P2SH_FULL]) {
      expect(refusal(address, message, signature), address).toBe('MALFORMED_SIGNATURE');
    }
  });

  it('P2PKH: refused as BIP-322 at all (SIGNATURE_TYPE_MISMATCH: P2PKH signs with BIP-137 here)', () => {
    expect(refusal(P2PKH_FULL.address, P2PKH_FULL.message, P2PKH_FULL.signature)).toBe('SIGNATURE_TYPE_MISMATCH');
  });

  it('P2WSH (multisig, time lock): refused for the address (UNSUPPORTED_ADDRESS_TYPE)', () => {
    for (const address of [
      'bc1qfqj9nyjyt48mnu3d5pl98t280l2w0ccpfd2r2mee3fwfxar5sehszuz26t',
      'bc1q9nrqkah76dcr2yvw40wkr2af439ccyl5xay0md3awkkk00zges4qdt3sx7',
      'bc1q9dtw8dz93e7w6v5w8tra2et0vhz3wct3hpvl4tk5vrac9xz8szwqtvf0e2',
    ]) {
      expect(refusal(address, '', P2WPKH_FULL.signature)).toBe('UNSUPPORTED_ADDRESS_TYPE');
    }
  });
});
