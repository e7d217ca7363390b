/**
 * The provider's standing work on stored clients, started with it: usage recording (and, once per
 * storage, marking the clients stored before it), logos for clients that have none yet
 * (CLIENTS_FILE clients, whose logo_uri only the operator changes, and clients stored by an earlier
 * version), and, with CLIENT_UNUSED_EXPIRY_DAYS, an hourly sweep of unused dynamic clients.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../observability/logger.ts';
import { listModelIds, type Store } from '../storage/index.ts';
import { pruneUnusedClients } from './expiry.ts';
import { type LogoStoreOptions, refreshClientLogo } from './logos.ts';
import { DocumentClients } from './metadata-documents/index.ts';
import { type ClientUsage, createClientUsage, startUsageTracking } from './usage.ts';

const SWEEP_INTERVAL_MS = 3600 * 1000;

export type ClientHousekeeping = {
  usage: ClientUsage;
  logos: LogoStoreOptions;
  /** CLIENT_ID_METADATA_DOCUMENTS on: the clients made from metadata documents (held in memory). */
  documents?: DocumentClients;
  stop(): Promise<void>;
};

export async function startClientHousekeeping(config: Config, store: Store, logger: Logger): Promise<ClientHousekeeping> {
  const usage = createClientUsage(
    store,
    config.staticClients.map((client) => String(client.client_id)),
  );
  const logos: LogoStoreOptions = {
    store,
    logger,
    allowPrivate: config.allowPrivateFetch,
    limitBytes: config.logoStorageLimit,
  };
  const earlier = await startUsageTracking(store, () => listModelIds(store, 'Client'));
  if (earlier.length > 0) logger.info({ clients: earlier.length }, 'clients stored before usage was recorded count as used');

  let stopped = false;
  const logoWork = (async () => {
    const wanted: [string, unknown][] = config.staticClients.map((client) => [String(client.client_id), client.logo_uri]);
    for (const id of earlier) {
      const raw = await store.get(`oidc:Client:${id}`);
      if (raw !== undefined) wanted.push([id, (JSON.parse(raw) as { logo_uri?: unknown }).logo_uri]);
    }
    for (const [id, uri] of wanted) {
      if (stopped) return;
      await refreshClientLogo(logos, id, typeof uri === 'string' ? uri : undefined);
    }
  })().catch((error) => logger.warn({ err: error }, 'could not fetch the logos of existing clients'));

  const days = config.clientUnusedExpiryDays;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = pruneUnusedClients(store, days)
      .then((removed) => {
        if (removed.length > 0) {
          logger.info(
            { clients: removed.map((client) => client.client_id), days },
            `removed ${removed.length} dynamically registered clients unused for ${days} days (CLIENT_UNUSED_EXPIRY_DAYS)`,
          );
        }
      })
      .catch((error) => logger.warn({ err: error }, 'could not remove unused clients'));
  };
  const timer = days > 0 ? setInterval(sweep, SWEEP_INTERVAL_MS) : undefined;
  timer?.unref();
  if (days > 0) sweep();

  return {
    usage,
    logos,
    ...(config.clientIdMetadataDocuments
      ? { documents: new DocumentClients({ allowPrivate: config.allowPrivateFetch, logger }) }
      : {}),
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await Promise.all([logoWork, sweeping]);
    },
  };
}
