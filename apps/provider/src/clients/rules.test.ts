import Provider from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { clientFields } from './rules.ts';

describe('clientFields', () => {
  it("reads the same values as oidc-provider's metadata(), for recognised and extra metadata", () => {
    const provider = new Provider('http://localhost:3000', {
      extraClientMetadata: {
        properties: [
          'access_conditions',
          'ens_email',
          'synthetic_email_domain',
          'account_namespaces',
          'account_subject',
          'passkey_sign_in',
        ],
      },
    });
    const Client = provider.Client as unknown as new (
      metadata: Record<string, unknown>,
    ) => object & { metadata(): Record<string, unknown> };
    const client = new Client({
      client_id: 'fields',
      client_secret: 'a-secret-long-enough-for-the-schema-0123456789',
      redirect_uris: ['https://rp.example/callback'],
      client_name: 'Example RP',
      logo_uri: 'https://rp.example/logo.png',
      client_uri: 'https://rp.example/',
      policy_uri: 'https://rp.example/privacy',
      tos_uri: 'https://rp.example/terms',
      access_conditions: { anyOf: [{ type: 'native-balance', chainId: 1, min: '1' }] },
      ens_email: true,
      synthetic_email_domain: 'wallet.example.com',
      account_namespaces: ['solana'],
      account_subject: true,
      passkey_sign_in: true,
    });
    const fields = clientFields(client);
    const metadata = client.metadata();
    for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
      expect(fields[key], key).toEqual(metadata[key]);
      expect(fields[key], key).toBeDefined();
    }
    const bare = clientFields(
      new Client({ client_id: 'bare', client_secret: 'x'.repeat(40), redirect_uris: ['https://rp.example/cb'] }),
    );
    expect(bare.client_name).toBeUndefined();
    expect(bare.access_conditions).toBeUndefined();
  });
});
