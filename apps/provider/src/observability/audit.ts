/**
 * Audit events: one JSON line per security-relevant event, on a stream of their own (AUDIT_LOG:
 * off, stdout, stderr or a file path). Every line carries `"type": "audit"`, an `event` name and
 * `time` (ISO 8601), then the event's fields (docs/operating.md, "Audit events", lists them all). A line
 * never holds a secret, a token, a code or a message signature: each event names its fields
 * explicitly, and any field whose name says it is a secret is dropped on the way out.
 */
import type { Context } from 'koa';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import pino from 'pino';
import type { AuditDestination } from '../config.ts';

/** Every event name, with what it records. */
export type AuditEvent =
  | 'sign_in.succeeded'
  | 'sign_in.refused'
  | 'consent.granted'
  | 'token.issued'
  | 'refresh.refused'
  | 'logout'
  | 'client.registered'
  | 'client.updated'
  | 'client.deleted'
  | 'signing_key.rotated'
  | 'account.created'
  | 'account.wallet_linked'
  | 'account.wallet_removed'
  | 'account.primary_changed'
  | 'account.deleted'
  | 'account.passkey_added'
  | 'account.passkey_removed';

/** Who changed a client or a key: open registration, REGISTRATION_TOKEN, the client's registration access token, or the CLI. */
export type AuditActor = 'open_registration' | 'registration_token' | 'registration_access_token' | 'cli';

export type AuditLog = {
  readonly enabled: boolean;
  write(event: AuditEvent, fields: Record<string, unknown>): void;
  /** Flushes what is buffered and closes a file. */
  close(): Promise<void>;
};

/** Field names that would carry a credential: never written, whoever passes them. */
const SECRET_FIELD = /secret|signature|password|token$|^code$|^jwk$|cookie|authorization/i;

const OFF: AuditLog = { enabled: false, write: () => {}, close: async () => {} };

export function createAuditLog(destination: AuditDestination): AuditLog {
  if (destination === 'off') return OFF;
  const stream =
    destination === 'stdout'
      ? pino.destination({ dest: 1, sync: true })
      : destination === 'stderr'
        ? pino.destination({ dest: 2, sync: true })
        : pino.destination({ dest: destination.file, sync: false, mkdir: true, append: true });
  let closed = false;
  return {
    enabled: true,
    write(event, fields) {
      if (closed) return;
      const line: Record<string, unknown> = { type: 'audit', event, time: new Date().toISOString() };
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined && !SECRET_FIELD.test(key)) line[key] = value;
      }
      stream.write(`${JSON.stringify(line)}\n`);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (typeof destination === 'object') {
        await new Promise<void>((resolve) => {
          stream.once('close', () => resolve());
          stream.end();
        });
      } else {
        stream.flushSync();
      }
    },
  };
}

/** Where a request came from, for every event made while answering one. */
export function requestFields(ctx: Context | KoaContextWithOIDC): { request_id?: string; ip: string } {
  return { request_id: (ctx.state as { reqId?: string } | undefined)?.reqId, ip: ctx.ip };
}

type Emitter = { on(event: string, listener: (...args: never[]) => void): void };

/**
 * The events oidc-provider emits, as audit events: tokens issued (token endpoint and, on the
 * hosted profile, implicit answers), logout, and client registration and its management.
 */
export function auditProviderEvents(provider: Provider, audit: AuditLog, options: { registrationToken: boolean }): void {
  if (!audit.enabled) return;
  const on = (provider as unknown as Emitter).on.bind(provider);
  const clientIdOf = (ctx: KoaContextWithOIDC) => ctx.oidc.client?.clientId;
  const issued = (body: Record<string, unknown> | undefined) =>
    ['access_token', 'id_token', 'refresh_token', 'code'].filter((kind) => typeof body?.[kind] === 'string');

  on('grant.success', (ctx: KoaContextWithOIDC) => {
    const body = ctx.body as Record<string, unknown> | undefined;
    audit.write('token.issued', {
      client_id: clientIdOf(ctx),
      account: (ctx.oidc.entities.Account as { accountId?: string } | undefined)?.accountId,
      grant_type: ctx.oidc.params?.grant_type,
      issued: issued(body).filter((kind) => kind !== 'code'),
      scope: typeof body?.scope === 'string' ? body.scope : undefined,
      ...requestFields(ctx),
    });
  });
  on('authorization.success', (ctx: KoaContextWithOIDC, out?: Record<string, unknown>) => {
    const kinds = issued(out).filter((kind) => kind !== 'code');
    if (kinds.length === 0) return; // a code: the tokens come at the token endpoint
    audit.write('token.issued', {
      client_id: clientIdOf(ctx),
      account: ctx.oidc.session?.accountId,
      grant_type: 'implicit',
      issued: kinds,
      ...requestFields(ctx),
    });
  });
  on('end_session.success', (ctx: KoaContextWithOIDC) => {
    audit.write('logout', {
      client_id: clientIdOf(ctx),
      account: ctx.oidc.session?.accountId,
      ...requestFields(ctx),
    });
  });
  on(
    'registration_create.success',
    (ctx: KoaContextWithOIDC, client: { clientId: string; metadata(): Record<string, unknown> }) => {
      audit.write('client.registered', {
        client_id: client.clientId,
        actor: options.registrationToken ? 'registration_token' : 'open_registration',
        ...clientSummary(client.metadata()),
        ...requestFields(ctx),
      });
    },
  );
  on('registration_update.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    // The event carries the client as it was; the answer holds it as it is now.
    audit.write('client.updated', {
      client_id: client.clientId,
      actor: 'registration_access_token',
      ...clientSummary((ctx.body ?? {}) as Record<string, unknown>),
      ...requestFields(ctx),
    });
  });
  on('registration_delete.success', (ctx: KoaContextWithOIDC, client: { clientId: string }) => {
    audit.write('client.deleted', { client_id: client.clientId, actor: 'registration_access_token', ...requestFields(ctx) });
  });
}

/** What an auditor needs to recognise a client: never its secret or registration token. */
export function clientSummary(metadata: Record<string, unknown>) {
  return {
    client_name: metadata.client_name,
    redirect_uris: metadata.redirect_uris,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    gated: metadata.access_conditions !== undefined,
  };
}
