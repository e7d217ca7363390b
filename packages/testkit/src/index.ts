export {
  type BitcoinAddressKind,
  type BitcoinKey,
  type BitcoinSignInOptions,
  bitcoinKey,
  bitcoinMessageFor,
  bitcoinSignIn,
} from './bitcoin.ts';
export { CookieJar, request } from './cookies.ts';
export {
  confirmUserCode,
  DEVICE_CODE_GRANT,
  type DeviceAuthorization,
  deviceAuthorization,
  followToDevicePage,
  formValue,
  openDevicePage,
  pollDeviceToken,
  postDeviceForm,
  registerDeviceClient,
} from './device.ts';
export { type DocumentAnswer, type DocumentServer, startDocumentServer } from './documents.ts';
export { anyText, contentType, mutated, printable } from './fuzz.ts';
export { insecure, pkceAuthorization, registerPublicClient, TEST_REDIRECT_URI } from './oidc.ts';
export { type AuthenticatorOptions, SoftAuthenticator, type SoftCredential } from './passkey.ts';
export { freePort, listeningAddresses, waitForListener } from './ports.ts';
export { startTestProvider, type TestProvider } from './provider.ts';
export {
  type SolanaKeypair,
  type SolanaSignInOptions,
  solanaKeypair,
  solanaMessageFor,
  solanaSignIn,
} from './solana.ts';
export { selfSignedCertificate } from './tls.ts';
export {
  followToClient,
  getDetails,
  type InteractionDetails,
  messageFor,
  postSignature,
  type Signer,
  startInteraction,
  type WalletSignInOptions,
  walletSignIn,
} from './wallet.ts';
