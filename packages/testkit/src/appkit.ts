/**
 * Messages as an app built with Reown AppKit writes them: AppKit's own message code from npm
 * (`@reown/appkit-siwx`'s `InformalMessenger`, the messenger its `DefaultSIWX` uses), given what
 * the app's backend handed it (for Signet, the interaction details), with AppKit's options as an
 * app sets them (`clearChainIdNamespace`, `expiration`).
 *
 * AppKit names the account in the first line by the network's `name` among the app's networks
 * (`ChainController`, which `createAppKit` fills). `@reown/appkit` itself (`createAppKit` and its
 * `@reown/appkit/networks`) is not installed here: the networks below carry the ids and names its
 * `mainnet`, `solana` and `bitcoin` have, and are handed to AppKit's own `ChainController` as
 * `createAppKit({ networks })` hands them.
 */
import { ChainController } from '@reown/appkit-controllers';
import { InformalMessenger } from '@reown/appkit-siwx';

/** The networks an app passes to `createAppKit({ networks })`, as `@reown/appkit/networks` defines them. */
export const APPKIT_NETWORKS = {
  ethereum: { id: 1, caipNetworkId: 'eip155:1', chainNamespace: 'eip155', name: 'Ethereum' },
  solana: {
    id: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    caipNetworkId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    chainNamespace: 'solana',
    name: 'Solana',
  },
  solanaDevnet: {
    id: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    caipNetworkId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    chainNamespace: 'solana',
    name: 'Solana Devnet',
  },
  bitcoin: {
    id: '000000000019d6689c085ae165831e93',
    caipNetworkId: 'bip122:000000000019d6689c085ae165831e93',
    chainNamespace: 'bip122',
    name: 'Bitcoin',
  },
} as const;

type AppKitNetwork = (typeof APPKIT_NETWORKS)[keyof typeof APPKIT_NETWORKS];

/** Hands the networks to AppKit's `ChainController`, as `createAppKit({ networks })` does (once is enough). */
export function useAppKitNetworks(networks: readonly AppKitNetwork[] = Object.values(APPKIT_NETWORKS)) {
  type Initialize = Parameters<typeof ChainController.initialize>;
  // No adapters and no clients: only the networks, which the messenger reads for their names.
  ChainController.initialize([], networks as unknown as Initialize[1], {} as Initialize[2]);
}

export type AppKitMessageOptions = {
  /** What the app's backend gave it: domain, URI, statement, resources and the nonce (the interaction details, for Signet). */
  fields: { domain: string; uri: string; statement?: string; resources?: readonly string[]; nonce: string };
  /** The network as AppKit names it: its CAIP-2 id (`eip155:1`, `solana:5eykt…`, `bip122:0000…`). */
  chainId: string;
  address: string;
  /** AppKit's option: `Chain ID:` without the namespace (`1`, the bare reference). */
  clearChainIdNamespace?: boolean;
  /** AppKit's `expiration`: the message's life in milliseconds from now (none by default). */
  expiration?: number;
  /**
   * The expiry the backend gave, written as it is: AppKit documents `getExpirationTime` as the
   * method to override for a custom expiration time, and an app that was given one does that.
   */
  expirationTime?: string;
};

type MessengerParameters = ConstructorParameters<typeof InformalMessenger>[0];

/** An app's messenger that writes the expiry its backend gave: AppKit's documented override. */
class GivenExpiryMessenger extends InformalMessenger {
  constructor(
    parameters: MessengerParameters,
    private readonly expirationTime: string,
  ) {
    super(parameters);
  }
  protected override getExpirationTime(): string {
    return this.expirationTime;
  }
}

/** The text an app using AppKit has its user sign. */
export async function appKitMessage(options: AppKitMessageOptions): Promise<string> {
  const { fields } = options;
  const parameters: MessengerParameters = {
    domain: fields.domain,
    uri: fields.uri,
    statement: fields.statement,
    resources: fields.resources ? [...fields.resources] : undefined,
    getNonce: async () => fields.nonce,
    clearChainIdNamespace: options.clearChainIdNamespace,
    expiration: options.expiration,
  };
  const messenger =
    options.expirationTime === undefined
      ? new InformalMessenger(parameters)
      : new GivenExpiryMessenger(parameters, options.expirationTime);
  const message = await messenger.createMessage({
    accountAddress: options.address,
    chainId: options.chainId as Parameters<InformalMessenger['createMessage']>[0]['chainId'],
  });
  return message.toString();
}
