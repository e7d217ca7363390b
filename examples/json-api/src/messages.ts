/** The spec's messages, word for word, and how the first line tells a message's kind. */
export const MESSAGES = {
  routeNotFound: 'Route not found',
  nonceFailed: 'Failed to generate nonce',
  internal: 'Internal server error',
  missingInput: 'Message and signature are required',
  invalidJson: 'Request body must be valid JSON',
  tooLarge: 'Request body is too large (limit 10 MB)',
  nonceExpired: 'Invalid nonce: expired',
  nonceUsed: 'Invalid nonce: already used',
  nonceNotFound: 'Invalid nonce: not found',
  invalidDomain: (domain: string) => `Invalid domain: ${domain}`,
  invalidChain: (chainId: number | string) => `Invalid chain ID: ${chainId}`,
  expired: 'Message has expired',
  notYetValid: 'Message is not yet valid',
  invalidSignature: 'Invalid signature',
  verificationFailed: 'Verification failed',
  rateLimited: 'Too many requests from this IP, please try again later.',
  authenticated: 'Authentication successful',
  loggedOut: 'Logged out successfully',
  healthy: 'SIWE backend is running',
} as const;

/**
 * `Chain ID:` is read in each profile's own form and also as the whole CAIP-2 id of a chain
 * (`eip155:1`, `solana:5eykt…` or its bare genesis hash, `bip122:000…`), as Reown AppKit's SIWX
 * writes them: a front end built with AppKit signs in here unchanged (README, "Messages").
 */
export const FORMS = { acceptCaip2ChainId: true } as const;

const SOLANA_FIRST_LINE = ' wants you to sign in with your Solana account:';
export const isSolanaMessage = (message: string) => message.split('\n', 1)[0]?.endsWith(SOLANA_FIRST_LINE) === true;
const BITCOIN_FIRST_LINE = ' wants you to sign in with your Bitcoin account:';
export const isBitcoinMessage = (message: string) => message.split('\n', 1)[0]?.endsWith(BITCOIN_FIRST_LINE) === true;
