import type { ChainRegistry } from '@signet/siwe';
import type { Provider } from 'oidc-provider';
import type { ClientHousekeeping } from './clients/housekeeping.ts';
import type { Config } from './config.ts';
import type { RateLimits } from './http/rate-limits.ts';
import type { Security } from './http/security.ts';
import type { WebAssets } from './http/static.ts';
import type { AuditLog } from './observability/audit.ts';
import type { Logger } from './observability/logger.ts';
import type { Metrics } from './observability/metrics.ts';
import type { Lifecycle } from './observability/operations.ts';
import type { Tracing } from './observability/tracing.ts';
import type { AccessGate } from './onchain/access.ts';
import type { EnsResolver } from './onchain/names/index.ts';
import type { RefreshGrace } from './refresh/grace.ts';
import type { UnitOfWorkStore } from './storage/unit-of-work.ts';

/** What request handlers share; built once by buildApp. */
export type Services = {
  config: Config;
  /** The storage; each request is one unit of work (storage/unit-of-work.ts). */
  store: UnitOfWorkStore;
  logger: Logger;
  chains: ChainRegistry;
  /** Clients' access conditions, checked at sign-in and at every refresh. */
  access: AccessGate;
  ens: EnsResolver;
  metrics: Metrics;
  /** Audit events (AUDIT_LOG); a no-op when off. */
  audit: AuditLog;
  /** OpenTelemetry spans (OTEL_*); direct calls when off. */
  tracing: Tracing;
  limits: RateLimits;
  security: Security;
  assets: WebAssets;
  /** Stored clients: whether one has been used, where logos are kept. */
  clients: ClientHousekeeping;
  /** REFRESH_REUSE_GRACE_SECONDS above 0: a rotated refresh token presented again answers its successor. */
  refresh?: RefreshGrace;
  /** What the readiness probe reports: keys loaded, and whether shutdown has begun. */
  lifecycle: Lifecycle;
  /** The current oidc-provider instance (replaced when signing keys rotate). */
  provider(): Provider;
};

export type { Lifecycle } from './observability/operations.ts';
