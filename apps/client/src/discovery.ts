import * as oidc from 'openid-client';
import type { ClientConfig } from './config.ts';
import type { createRegistrar } from './registration.ts';

/** openid-client's configuration: the provider's discovery and this client's registration, made once and reused (again after a failure). */
export function lazyOidcConfig(
  config: Pick<ClientConfig, 'issuer'>,
  registrar: ReturnType<typeof createRegistrar>,
  execute?: ((config: oidc.Configuration) => void)[],
): () => Promise<oidc.Configuration> {
  let configuration: Promise<oidc.Configuration> | undefined;
  return () => {
    configuration ??= (async () => {
      const registration = await registrar.get();
      const auth = registration.client_secret ? oidc.ClientSecretBasic(registration.client_secret) : oidc.None();
      return oidc.discovery(new URL(config.issuer), registration.client_id, undefined, auth, { execute });
    })().catch((error) => {
      configuration = undefined;
      throw error;
    });
    return configuration;
  };
}
