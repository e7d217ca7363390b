/**
 * Sign In With Solana verification speed: Signet's whole check (strict parse + validate +
 * Ed25519) beside the raw floors (decode + Ed25519 with @noble/curves, pure JavaScript, and
 * with Node's own OpenSSL, which Signet uses), beside the wallet-standard reference's
 * `verifySignIn`, and beside Signet's Ethereum check of a message with the same fields, all in
 * the same run.
 */
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58, base64urlnopad } from '@scure/base';
import { createSiwsMessage, ed25519Verify, verifySiws } from '@signet/siws';
import { verifySignIn } from '@solana/wallet-standard-util';
import { measure } from './measure.ts';
import type { Section } from './report.ts';
import { ethereumSignIn } from './siwe-verify.ts';

/** RFC 8032 §7.1 TEST 1's key, as PKCS #8. */
const KEY = createPrivateKey({
  key: Buffer.from('302e020100300506032b6570042204209d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'),
  format: 'der',
  type: 'pkcs8',
});
const NOW = Date.parse('2025-01-01T00:05:00Z');

export async function siwsVerify(): Promise<Section> {
  const publicKey = base64urlnopad.decode(createPublicKey(KEY).export({ format: 'jwk' }).x as string);
  const address = base58.encode(publicKey);
  const input = {
    domain: 'login.example.com',
    address,
    statement: 'Sign in to Example with your Solana account.',
    uri: 'https://login.example.com',
    version: '1',
    chainId: 'mainnet',
    nonce: 'k8Xg2LqP0vTz7mNcR',
    issuedAt: '2025-01-01T00:00:00.000Z',
    expirationTime: '2025-01-01T00:10:00.000Z',
    resources: ['https://rp.example.org/callback'],
  } as const;
  const message = createSiwsMessage(input);
  const signatureBytes = new Uint8Array(sign(null, Buffer.from(message), KEY));
  const signature = base58.encode(signatureBytes);
  const encoder = new TextEncoder();

  // The floors: what any verification from the wire must at least do (decode, encode, verify).
  const floorWith = (verify: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean) => () => {
    if (!verify(base58.decode(signature), encoder.encode(message), base58.decode(address))) throw new Error('floor: invalid');
  };
  const floorNoble = floorWith((s, m, p) => ed25519.verify(s, m, p, { zip215: false }));
  const floorSignet = floorWith(ed25519Verify);

  const signet = () => {
    const result = verifySiws({
      message,
      signature,
      expect: {
        domain: 'login.example.com',
        nonce: 'k8Xg2LqP0vTz7mNcR',
        networks: ['mainnet'],
        time: NOW,
        resource: 'https://rp.example.org/callback',
      },
    });
    if (result.address !== address) throw new Error('signet: wrong address');
  };

  // What the reference asks of a verifier: the input it sent and the wallet's output.
  const signedMessage = encoder.encode(message);
  const reference = () => {
    const output = {
      account: { address, publicKey, chains: [], features: [] },
      signedMessage,
      signature: base58.decode(signature),
    };
    if (!verifySignIn({ ...input, resources: [...input.resources] }, output)) throw new Error('reference: invalid');
  };

  const ethereum = await ethereumSignIn();

  // Each must succeed before it is timed.
  floorNoble();
  floorSignet();
  signet();
  reference();
  await ethereum.verify();

  const FLOOR_NOBLE = 'floor: base58 + Ed25519 (@noble/curves, strict)';
  const FLOOR_SIGNET = 'floor: base58 + Ed25519 (strict key check + OpenSSL, as Signet)';
  const SIGNET = 'signet: verifySiws (parse + validate + Ed25519)';
  const REFERENCE = '@solana/wallet-standard-util: verifySignIn (parse + compare + @noble Ed25519)';
  const ETHEREUM = 'signet: verifySiwe, Ethereum EOA (same fields)';
  const { results, ratio } = await measure([
    { name: FLOOR_NOBLE, fn: floorNoble },
    { name: FLOOR_SIGNET, fn: floorSignet },
    { name: SIGNET, fn: signet },
    { name: REFERENCE, fn: reference },
    { name: ETHEREUM, fn: ethereum.verify },
  ]);
  const ofFloor = ratio(SIGNET, FLOOR_NOBLE);
  const ofSameCrypto = ratio(SIGNET, FLOOR_SIGNET);
  const vsReference = ratio(SIGNET, REFERENCE);
  const vsEthereum = ratio(SIGNET, ETHEREUM);
  return {
    title: 'Solana sign-in verification (one message, one signature)',
    table: {
      head: ['case', 'ops/s', 'mean µs', 'p99 µs'],
      rows: results.map((r) => [r.name, r.opsPerSec.toFixed(0), r.meanMicros.toFixed(1), r.p99Micros.toFixed(1)]),
    },
    checks: [
      {
        name: 'signet / floor (@noble)',
        value: ofFloor,
        display: `${(ofFloor * 100).toFixed(1)} %`,
        target: '≥ 85 %',
        pass: ofFloor >= 0.85,
      },
      {
        name: 'signet / floor on the same crypto (overhead of parse + validate)',
        value: ofSameCrypto,
        display: `${(ofSameCrypto * 100).toFixed(1)} %`,
        target: '≥ 85 %',
        pass: ofSameCrypto >= 0.85,
      },
      {
        name: 'signet / @solana/wallet-standard-util',
        value: vsReference,
        display: `${vsReference.toFixed(2)}×`,
        target: '≥ 2×',
        pass: vsReference >= 2,
      },
    ],
    notes: [`Solana / Ethereum sign-in verification rate (both Signet's whole check, in this run): ${vsEthereum.toFixed(2)}×.`],
  };
}
