/**
 * The CAIP-122 message with its namespace slot: the fields every Sign-In with X profile has, in
 * their order, and what a profile (`@signet/siws` for Solana, `@signet/siwb` for Bitcoin, the next
 * one) fills in: the account kind its first line names, its addresses, its chain ids, which of
 * the fields it requires, and its error class. `parseCaip122Message` and `createCaip122Message`
 * do the rest.
 */
import type { SiweField } from './errors.ts';
import type { SignInErrorClass } from './signInError.ts';

/** The tagged lines of a message, in their order (each at most once), then `Resources:`. */
export const TAGGED_FIELDS = [
  { label: 'URI: ', field: 'uri' },
  { label: 'Version: ', field: 'version' },
  { label: 'Chain ID: ', field: 'chainId' },
  { label: 'Nonce: ', field: 'nonce' },
  { label: 'Issued At: ', field: 'issuedAt' },
  { label: 'Expiration Time: ', field: 'expirationTime' },
  { label: 'Not Before: ', field: 'notBefore' },
  { label: 'Request ID: ', field: 'requestId' },
] as const;
export type TaggedField = (typeof TAGGED_FIELDS)[number]['field'];
export const RESOURCES_LINE = 'Resources:';
export const RESOURCE_PREFIX = '- ';

/** Whether a line opens the fields (and so cannot be a statement). */
export const isFieldLine = (line: string) => line === RESOURCES_LINE || TAGGED_FIELDS.some(({ label }) => line.startsWith(label));

/** A parsed CAIP-122 message: domain and address always; the rest as the profile requires or the text has them. */
export type Caip122Message = {
  domain: string;
  address: string;
  statement?: string;
  uri?: string;
  version?: '1';
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
};

/** The error types the shared grammar throws: every profile's error class has them. */
export type Caip122ErrorType =
  | 'UNABLE_TO_PARSE'
  | 'WRONG_NAMESPACE'
  | 'INVALID_DOMAIN'
  | 'INVALID_ADDRESS'
  | 'INVALID_STATEMENT'
  | 'INVALID_URI'
  | 'INVALID_MESSAGE_VERSION'
  | 'INVALID_CHAIN_ID'
  | 'INVALID_NONCE'
  | 'INVALID_TIME_FORMAT'
  | 'INVALID_REQUEST_ID'
  | 'INVALID_RESOURCE';

/** The fields an error can point at: those of Sign-In with Ethereum but its scheme (CAIP-122 has none). */
export type Caip122Field = Exclude<SiweField, 'scheme'>;

/** What is wrong with a value: a sentence (the rule's own type), or a type of the profile's and a sentence; undefined when fine. */
export type FieldProblem<T extends string = string> = string | { type: T; text: string } | undefined;

/**
 * How a parser reads `Chain ID:`. By default, only as the profile's own grammar writes it
 * (EIP-4361's decimal `1`, a SIWS cluster name, a Bitcoin network's bare CAIP-2 reference).
 * `acceptCaip2ChainId` also takes the whole CAIP-2 chain id of one of the profile's chains
 * (`eip155:1`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`, `bip122:000000000019d6689c085ae165831e93`)
 * and, for Solana, the bare genesis-hash reference: the forms CAIP-122 writers such as Reown
 * AppKit's SIWX put there. A chain id of another namespace, or one no profile chain has, is still
 * refused. The parsed `chainId` is then the profile's own spelling of that chain (the text keeps
 * what was signed, so it formats back to the canonical form, not to the signed bytes).
 */
export type Caip122ParseOptions = { acceptCaip2ChainId?: boolean };

/** What a profile puts in the namespace slot. */
export type Caip122Namespace<T extends string = Caip122ErrorType> = {
  /** The CAIP-2 namespace: `solana`, `bip122`. */
  namespace: string;
  /** The kind of account the first line names: `Solana` in "… wants you to sign in with your Solana account:". */
  kind: string;
  /** The profile's short name, in error texts: `SIWS`. */
  name: string;
  /** Where the order of the fields comes from, in error texts: `the SIWS ABNF`. */
  order: string;
  /** The tagged fields every message has (a prefix of TAGGED_FIELDS' order): none for SIWS, URI to Issued At for SIWB. */
  required: readonly TaggedField[];
  /** The profile's error class: every failure is thrown as one. */
  Failure: SignInErrorClass<T | Caip122ErrorType, Caip122Field>;
  /** What is wrong with an address (a Solana public key, a Bitcoin address). */
  addressProblem(address: string): FieldProblem<T>;
  /** What is wrong with a Chain ID as the profile writes it (`mainnet`, `000000000019d6689c085ae165831e93`). */
  chainIdProblem(chainId: string): FieldProblem<T>;
  /** The profile's spelling of the chain a CAIP-2 reference names (`5eykt…` → `mainnet`), undefined for none of its chains. */
  chainOfReference(reference: string): string | undefined;
  /** Checks across fields once the Chain ID is read (a Bitcoin address is one of its network's); throws the profile's error. */
  checkAddressOnChain?(address: string, chainId: string, line?: number): void;
};
