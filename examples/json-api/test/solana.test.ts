import { base58 } from '@scure/base';
import { type CreateSiwsMessageParameters, createSiwsMessage } from '@signet/siws';
import { solanaKeypair } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJsonApiConfig, MESSAGES } from '../src/index.ts';
import { type Running, start } from './start.ts';

const keypair = solanaKeypair();

/** Application B's sign-in routes on the server `app()` returns (read when called, after it started). */
function authApi(app: () => Running) {
  const nonce = async () => ((await (await fetch(`${app().url}/auth/nonce`)).json()) as { nonce: string }).nonce;
  const messageFor = (fields: Partial<CreateSiwsMessageParameters>) =>
    createSiwsMessage({
      domain: `127.0.0.1:${app().port}`,
      address: keypair.address,
      statement: 'Sign in to the API.',
      uri: `http://127.0.0.1:${app().port}`,
      version: '1',
      chainId: 'mainnet',
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 600_000),
      ...fields,
    });
  const verify = (message: string, signature = base58.encode(keypair.sign(message))) =>
    fetch(`${app().url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature }),
    });
  return { nonce, messageFor, verify };
}

type AuthApi = ReturnType<typeof authApi>;
const other = solanaKeypair();

const refusal = async (response: Response) => {
  const body = (await response.json()) as { success: boolean; error: { message: string; details?: { type?: string } } };
  return { status: response.status, success: body.success, message: body.error.message, type: body.error.details?.type };
};

/**
 * Each refusal: its name, how to get it, and the status, message and (for a bad signature) type an
 * Ethereum one gets, in the order checked.
 */
const refusalCases: [string, (api: AuthApi) => Promise<Response>, number, string, string?][] = [
  ['no nonce line', async ({ messageFor, verify }) => verify(messageFor({})), 400, MESSAGES.nonceNotFound],
  [
    'unknown nonce',
    async ({ messageFor, verify }) => verify(messageFor({ nonce: 'neverIssued123' })),
    400,
    MESSAGES.nonceNotFound,
  ],
  [
    'domain not allowed',
    async ({ nonce, messageFor, verify }) => verify(messageFor({ nonce: await nonce(), domain: 'evil.example.com' })),
    400,
    'Invalid domain: evil.example.com',
  ],
  [
    'network not allowed',
    async ({ nonce, messageFor, verify }) => verify(messageFor({ nonce: await nonce(), chainId: 'devnet' })),
    400,
    'Invalid chain ID: devnet',
  ],
  [
    'localnet',
    async ({ nonce, messageFor, verify }) => verify(messageFor({ nonce: await nonce(), chainId: 'localnet' })),
    400,
    'Invalid chain ID: localnet',
  ],
  [
    'no Chain ID',
    async ({ nonce, messageFor, verify }) => verify(messageFor({ nonce: await nonce(), chainId: undefined })),
    400,
    'Invalid chain ID: none',
  ],
  [
    'expired',
    async ({ nonce, messageFor, verify }) =>
      verify(messageFor({ nonce: await nonce(), expirationTime: new Date(Date.now() - 120_000) })),
    400,
    MESSAGES.expired,
  ],
  [
    'not yet valid',
    async ({ nonce, messageFor, verify }) =>
      verify(messageFor({ nonce: await nonce(), notBefore: new Date(Date.now() + 600_000) })),
    400,
    MESSAGES.notYetValid,
  ],
  [
    'signed by another key',
    async ({ nonce, messageFor, verify }) => {
      const message = messageFor({ nonce: await nonce() });
      return verify(message, base58.encode(other.sign(message)));
    },
    401,
    MESSAGES.invalidSignature,
    'INVALID_SIGNATURE',
  ],
  [
    'a signature of 63 bytes',
    async ({ nonce, messageFor, verify }) => {
      const message = messageFor({ nonce: await nonce() });
      return verify(message, base58.encode(keypair.sign(message).slice(0, 63)));
    },
    401,
    MESSAGES.invalidSignature,
    'INVALID_SIGNATURE',
  ],
  [
    'an address of 31 bytes (does not parse: the outer handler)',
    async ({ nonce, messageFor, verify }) => {
      const message = messageFor({ nonce: await nonce() }).replace(keypair.address, base58.encode(new Uint8Array(31).fill(9)));
      return verify(message);
    },
    500,
    MESSAGES.verificationFailed,
    'INVALID_ADDRESS',
  ],
];

describe('application B: Sign in with Solana (SOLANA_NETWORKS=mainnet), real HTTP', () => {
  let b: Running;
  beforeAll(async () => {
    b = await start({ SOLANA_NETWORKS: 'mainnet' });
  });
  afterAll(() => b?.close());

  const api = authApi(() => b);
  const { nonce, messageFor, verify } = api;

  it('200: the user names its namespace, and the token works at /auth/me', async () => {
    const message = messageFor({ nonce: await nonce() });
    const response = await verify(message);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; token: string; user: Record<string, unknown>; message: string };
    expect(body).toEqual({
      success: true,
      token: expect.any(String),
      user: {
        namespace: 'solana',
        address: keypair.address,
        domain: `127.0.0.1:${b.port}`,
        chainId: 'mainnet',
        issuedAt: expect.stringMatching(/Z$/),
        expirationTime: expect.stringMatching(/Z$/),
      },
      message: MESSAGES.authenticated,
    });
    const me = await fetch(`${b.url}/auth/me`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(await me.json()).toEqual({
      success: true,
      user: { address: keypair.address, chainId: 'mainnet', namespace: 'solana' },
    });
    // The nonce is spent.
    expect(await refusal(await verify(message))).toMatchObject({ status: 400, message: MESSAGES.nonceUsed });
  });

  it('each refusal with the message and status an Ethereum one gets, in the same order', async () => {
    for (const [name, run, status, message, type] of refusalCases) {
      const got = await refusal(await run(api));
      expect(got, name).toMatchObject({ status, success: false, message, ...(type ? { type } : {}) });
    }
  });
});

describe('application B: Solana off (the default)', () => {
  let b: Running;
  beforeAll(async () => {
    b = await start({});
  });
  afterAll(() => b?.close());

  it('a Solana message is refused at the chain step: no network is allowed', async () => {
    const { nonce } = (await (await fetch(`${b.url}/auth/nonce`)).json()) as { nonce: string };
    const message = createSiwsMessage({
      domain: `127.0.0.1:${b.port}`,
      address: keypair.address,
      uri: `http://127.0.0.1:${b.port}`,
      version: '1',
      chainId: 'mainnet',
      nonce,
      issuedAt: new Date(),
    });
    const response = await fetch(`${b.url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: base58.encode(keypair.sign(message)) }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Invalid chain ID: mainnet');
  });

  it('SOLANA_NETWORKS is validated at start, naming the variable', () => {
    expect(() => loadJsonApiConfig({ SOLANA_NETWORKS: 'mainnet,moon' })).toThrow(
      /^SOLANA_NETWORKS: must be a comma-separated list/,
    );
    expect(loadJsonApiConfig({ SOLANA_NETWORKS: 'devnet' }).solanaNetworks).toEqual(['devnet']);
    expect(loadJsonApiConfig({}).solanaNetworks).toEqual([]);
  });
});
