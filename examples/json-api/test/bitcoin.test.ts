import { BITCOIN_CHAIN_REFERENCES, type CreateSiwbMessageParameters, createSiwbMessage } from '@signet/siwb';
import { type BitcoinAddressKind, bitcoinKey } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJsonApiConfig, MESSAGES } from '../src/index.ts';
import { type Running, start } from './start.ts';

const key = bitcoinKey();
const MAINNET = BITCOIN_CHAIN_REFERENCES.mainnet;

const p2wpkh = key.address('p2wpkh');
const p2pkh = key.address('p2pkh');

/** Application B's sign-in routes on the server `app()` returns (read when called, after it started). */
function authApi(app: () => Running) {
  const nonce = async () => ((await (await fetch(`${app().url}/auth/nonce`)).json()) as { nonce: string }).nonce;
  const messageFor = (address: string, fields: Partial<CreateSiwbMessageParameters>) =>
    createSiwbMessage({
      domain: `127.0.0.1:${app().port}`,
      address,
      statement: 'Sign in to the API.',
      uri: `http://127.0.0.1:${app().port}`,
      chainId: MAINNET,
      nonce: 'placeholder0',
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 600_000),
      ...fields,
    });
  const verify = (message: string, signature: string) =>
    fetch(`${app().url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature }),
    });
  const signed = async (address: string, type: BitcoinAddressKind, fields: Partial<CreateSiwbMessageParameters> = {}) => {
    const message = messageFor(address, { nonce: await nonce(), ...fields });
    return { message, signature: key.sign(type, message) };
  };
  return { nonce, messageFor, verify, signed };
}
type AuthApi = ReturnType<typeof authApi>;

const refusal = async (response: Response) => {
  const body = (await response.json()) as { success: boolean; error: { message: string; details?: { type?: string } } };
  return { status: response.status, success: body.success, message: body.error.message, type: body.error.details?.type };
};

/**
 * Each refusal: its name, how to get it, and the status, message and (for a bad signature) type an
 * Ethereum one gets, in the order checked.
 */
const refusalCases: [string, (api: AuthApi) => Promise<Response>, number, string, string?][] = [
  [
    'unknown nonce',
    async ({ verify, signed }) => {
      const { message, signature } = await signed(p2wpkh, 'p2wpkh', { nonce: 'neverIssued123' });
      return verify(message, signature);
    },
    400,
    MESSAGES.nonceNotFound,
  ],
  [
    'domain not allowed',
    async ({ verify, signed }) => {
      const { message, signature } = await signed(p2wpkh, 'p2wpkh', { domain: 'evil.example.com' });
      return verify(message, signature);
    },
    400,
    'Invalid domain: evil.example.com',
  ],
  [
    'network not allowed (signet)',
    async ({ nonce, messageFor, verify }) => {
      const address = key.address('p2wpkh', 'signet');
      const message = messageFor(address, { nonce: await nonce(), chainId: BITCOIN_CHAIN_REFERENCES.signet });
      return verify(message, key.sign('p2wpkh', message, { network: 'signet' }));
    },
    400,
    `Invalid chain ID: ${BITCOIN_CHAIN_REFERENCES.signet}`,
  ],
  [
    'expired',
    async ({ verify, signed }) => {
      const { message, signature } = await signed(p2wpkh, 'p2wpkh', { expirationTime: new Date(Date.now() - 120_000) });
      return verify(message, signature);
    },
    400,
    MESSAGES.expired,
  ],
  [
    'not yet valid',
    async ({ verify, signed }) => {
      const { message, signature } = await signed(p2wpkh, 'p2wpkh', { notBefore: new Date(Date.now() + 600_000) });
      return verify(message, signature);
    },
    400,
    MESSAGES.notYetValid,
  ],
  [
    'signed by another key',
    async ({ verify, signed }) => {
      const { message } = await signed(p2wpkh, 'p2wpkh');
      return verify(message, bitcoinKey().sign('p2wpkh', message));
    },
    401,
    MESSAGES.invalidSignature,
    'INVALID_SIGNATURE',
  ],
  [
    'a Taproot signature for a bc1q address',
    async ({ verify, signed }) => {
      const { message } = await signed(p2wpkh, 'p2wpkh');
      return verify(message, key.sign('p2tr', message));
    },
    401,
    MESSAGES.invalidSignature,
    'SIGNATURE_TYPE_MISMATCH',
  ],
  [
    'a BIP-137 signature for a segwit address',
    async ({ verify, signed }) => {
      const { message } = await signed(p2wpkh, 'p2wpkh');
      return verify(message, key.sign('p2pkh', message));
    },
    401,
    MESSAGES.invalidSignature,
    'SIGNATURE_TYPE_MISMATCH',
  ],
  [
    'BIP-322 for a P2PKH address',
    async ({ verify, signed }) => {
      const { message } = await signed(p2pkh, 'p2pkh');
      return verify(message, key.sign('p2wpkh', message));
    },
    401,
    MESSAGES.invalidSignature,
    'SIGNATURE_TYPE_MISMATCH',
  ],
  [
    'a signature over 400 characters',
    async ({ verify, signed }) => verify((await signed(p2wpkh, 'p2wpkh')).message, 'A'.repeat(404)),
    401,
    MESSAGES.invalidSignature,
    'MALFORMED_SIGNATURE',
  ],
  [
    'a test address under mainnet’s Chain ID (does not parse: the outer handler)',
    async ({ verify, signed }) => {
      const { message, signature } = await signed(p2wpkh, 'p2wpkh');
      return verify(message.replace(p2wpkh, key.address('p2wpkh', 'testnet')), signature);
    },
    500,
    MESSAGES.verificationFailed,
    'NETWORK_MISMATCH',
  ],
];

describe('application B: Sign in with Bitcoin (BITCOIN_NETWORKS=mainnet), real HTTP', () => {
  let b: Running;
  beforeAll(async () => {
    b = await start({ BITCOIN_NETWORKS: 'mainnet' });
  });
  afterAll(() => b?.close());

  const api = authApi(() => b);
  const { nonce, messageFor, verify } = api;

  for (const type of ['p2wpkh', 'p2tr', 'p2sh-p2wpkh', 'p2pkh'] as BitcoinAddressKind[]) {
    it(`200 for a ${type} address: the user names its namespace, the token works at /auth/me, the nonce is spent`, async () => {
      const address = key.address(type);
      const message = messageFor(address, { nonce: await nonce() });
      const response = await verify(message, key.sign(type, message));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { success: boolean; token: string; user: Record<string, unknown>; message: string };
      expect(body).toEqual({
        success: true,
        token: expect.any(String),
        user: {
          namespace: 'bip122',
          address,
          domain: `127.0.0.1:${b.port}`,
          chainId: MAINNET,
          issuedAt: expect.stringMatching(/Z$/),
          expirationTime: expect.stringMatching(/Z$/),
        },
        message: MESSAGES.authenticated,
      });
      const me = await fetch(`${b.url}/auth/me`, { headers: { authorization: `Bearer ${body.token}` } });
      expect(await me.json()).toEqual({ success: true, user: { address, chainId: MAINNET, namespace: 'bip122' } });
      expect(await refusal(await verify(message, key.sign(type, message)))).toMatchObject({
        status: 400,
        message: MESSAGES.nonceUsed,
      });
    });
  }

  it('each refusal with the message and status an Ethereum one gets, in the same order; every bad signature is 401', async () => {
    for (const [name, run, status, message, type] of refusalCases) {
      const got = await refusal(await run(api));
      expect(got, name).toMatchObject({ status, success: false, message, ...(type ? { type } : {}) });
    }
  });
});

describe('application B: Bitcoin off (the default)', () => {
  let b: Running;
  beforeAll(async () => {
    b = await start({});
  });
  afterAll(() => b?.close());

  it('a Bitcoin message is refused at the chain step: no network is allowed', async () => {
    const { nonce } = (await (await fetch(`${b.url}/auth/nonce`)).json()) as { nonce: string };
    const message = createSiwbMessage({
      domain: `127.0.0.1:${b.port}`,
      address: key.address('p2tr'),
      uri: `http://127.0.0.1:${b.port}`,
      chainId: MAINNET,
      nonce,
      issuedAt: new Date(),
    });
    const response = await fetch(`${b.url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: key.sign('p2tr', message) }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(`Invalid chain ID: ${MAINNET}`);
  });

  it('BITCOIN_NETWORKS is validated at start, naming the variable', () => {
    expect(() => loadJsonApiConfig({ BITCOIN_NETWORKS: 'mainnet,regtest' })).toThrow(
      /^BITCOIN_NETWORKS: must be a comma-separated list/,
    );
    expect(loadJsonApiConfig({ BITCOIN_NETWORKS: 'signet,testnet4' }).bitcoinNetworks).toEqual(['signet', 'testnet4']);
    expect(loadJsonApiConfig({}).bitcoinNetworks).toEqual([]);
  });
});
