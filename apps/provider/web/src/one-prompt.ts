/**
 * One prompt for an Ethereum wallet that connects and signs in at once: ERC-7846 `wallet_connect`
 * with the `signInWithEthereum` capability (Base Account, Porto). Loaded when a person picks an
 * Ethereum wallet, so it costs the page nothing before then.
 *
 * The page asks with every field of the message the details describe (`chainId` in hex, as the
 * ERC writes it), and takes the wallet's answer only when its message says exactly those fields:
 * the ERC asks the app to check, and a wallet that wrote something else would have the person sign
 * what the page did not show. On any difference nothing is posted. A wallet without `wallet_connect`
 * answers "method not supported" at once (no prompt), and the page connects, then signs.
 */
import type { checksumAddress } from '@signet/siwe/message';
import type { messageFromDetails, messageParameters } from '../../src/signin/contract.ts';
import type { InteractionDetails } from '../../src/signin/details.ts';

/**
 * The interaction contract's message (signin/contract.ts) and EIP-55, which the page has already
 * loaded: handed in rather than imported, so this chunk shares no module with the others.
 */
export type Contract = {
  messageParameters: typeof messageParameters;
  messageFromDetails: typeof messageFromDetails;
  checksumAddress: typeof checksumAddress;
};

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

/** A wallet that answered with another message than the one this page asked for (the page words it). */
export class ChangedMessageError extends Error {
  override readonly name = 'ChangedMessageError';
  constructor(readonly field: string) {
    super(`the wallet's message differs from the one asked for: its ${field}`);
  }
}

/** What `wallet_connect` gave: a signed message, or only the account (the wallet ignored the capability), or nothing (no such method). */
export type OnePrompt =
  | { kind: 'signed'; message: string; signature: string }
  | { kind: 'connected'; address: `0x${string}` }
  | { kind: 'unsupported' };

/** The errors of a wallet without `wallet_connect`: EIP-1193's "unsupported method", JSON-RPC's "method not found" and "invalid params". */
const UNSUPPORTED_CODES = new Set([4200, -32601, -32602]);
const UNSUPPORTED_WORDS = /not supported|unsupported|does not exist|not found|unknown method|not implemented/i;

/** The tagged lines of EIP-4361, and the field each carries. */
const TAGGED: [label: string, field: string][] = [
  ['URI: ', 'uri'],
  ['Version: ', 'version'],
  ['Chain ID: ', 'chainId'],
  ['Nonce: ', 'nonce'],
  ['Issued At: ', 'issuedAt'],
  ['Expiration Time: ', 'expirationTime'],
  ['Not Before: ', 'notBefore'],
  ['Request ID: ', 'requestId'],
];

/** Each field of an EIP-4361 text as written: the first line (domain and scheme), the address, the statement, the tagged lines, the resources. */
function fieldsOf(text: string): Map<string, string> {
  const lines = text.split('\n');
  const fields = new Map([
    ['domain', lines[0] ?? ''],
    ['address', lines[1] ?? ''],
  ]);
  const resources: string[] = [];
  for (const line of lines.slice(2)) {
    const tagged = TAGGED.find(([label]) => line.startsWith(label));
    if (tagged) fields.set(tagged[1], `${fields.get(tagged[1]) ?? ''}\n${line.slice(tagged[0].length)}`);
    else if (line.startsWith('- ')) resources.push(line);
    else if (line !== '' && line !== 'Resources:') fields.set('statement', `${fields.get('statement') ?? ''}\n${line}`);
  }
  fields.set('resources', resources.join('\n'));
  return fields;
}

/**
 * The first field in which the wallet's message is not the one asked for, or undefined when it is
 * exactly that text. A text that differs only in its layout (a missing or extra empty line) is
 * "layout": the wallet's message must be the asked one byte for byte.
 */
function firstDifference(expected: string, received: unknown): string | undefined {
  if (typeof received !== 'string') return 'text (there is none)';
  if (received === expected) return undefined;
  const wanted = fieldsOf(expected);
  const got = fieldsOf(received);
  const names = [...new Set([...wanted.keys(), ...got.keys()])];
  return names.find((name) => wanted.get(name) !== got.get(name)) ?? 'layout';
}

function unsupported(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: number; message?: string };
  return (code !== undefined && UNSUPPORTED_CODES.has(code)) || UNSUPPORTED_WORDS.test(message ?? '');
}

/**
 * Asks the wallet to connect and sign in at once for these details on `chainId`. `show` receives
 * the message asked for, with the account the wallet connected. Throws ChangedMessageError
 * (nothing to post) when the wallet's message differs in any field, and the wallet's own error
 * when the person declines.
 */
export async function connectAndSignIn(
  provider: Provider,
  details: InteractionDetails,
  options: { chainId: number; now: number; show(message: string): void; contract: Contract },
): Promise<OnePrompt> {
  const { chainId, now, contract } = options;
  const { messageParameters, messageFromDetails, checksumAddress } = contract;
  // The fields of the message these details describe (the wallet adds the account's address).
  const asked = messageParameters(details, { address: '0x0000000000000000000000000000000000000000', chainId, now });
  const time = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);
  const capability = {
    nonce: asked.nonce,
    chainId: `0x${chainId.toString(16)}`,
    version: asked.version,
    domain: asked.domain,
    uri: asked.uri,
    ...(asked.statement === undefined ? {} : { statement: asked.statement }),
    issuedAt: time(asked.issuedAt),
    ...(asked.expirationTime === undefined ? {} : { expirationTime: time(asked.expirationTime) }),
    resources: asked.resources,
  };
  let answer: unknown;
  try {
    answer = await provider.request({
      method: 'wallet_connect',
      params: [{ version: '1', capabilities: { signInWithEthereum: capability } }],
    });
  } catch (error) {
    if (unsupported(error)) return { kind: 'unsupported' };
    throw error;
  }
  const account = (answer as { accounts?: { address?: unknown; capabilities?: Record<string, unknown> }[] } | undefined)
    ?.accounts?.[0];
  if (typeof account?.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(account.address)) {
    throw new Error('the wallet returned no account');
  }
  const address = checksumAddress(account.address);
  const signedIn = account.capabilities?.signInWithEthereum as { message?: unknown; signature?: unknown } | undefined;
  if (signedIn === undefined) return { kind: 'connected', address };
  const expected = messageFromDetails(details, { address, chainId, now });
  options.show(expected);
  const differs = firstDifference(expected, signedIn.message);
  if (differs) throw new ChangedMessageError(differs);
  if (typeof signedIn.signature !== 'string') throw new Error('the wallet returned no signature');
  return { kind: 'signed', message: signedIn.message as string, signature: signedIn.signature };
}
