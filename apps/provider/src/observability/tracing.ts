/**
 * OpenTelemetry traces, off unless the standard OTEL_* variables turn them on (config.ts decides;
 * the SDK reads the endpoint, headers, sampler and resource attributes itself). When off, nothing
 * of OpenTelemetry is loaded and every hook below is a direct call: no middleware, no wrapped
 * store, no wrapped fetch. When on, the SDK is imported here, once, at start.
 *
 * Spans: one SERVER span per request (continuing an incoming W3C `traceparent`), and inside it
 * `signet.siwe.verify`, `signet.access.check`, `signet.ens.resolve`, `signet.rpc` (one per
 * JSON-RPC request: method, chain id; never the URL, which may hold an API key) and
 * `signet.storage.<operation>` (the kind of key, never the key: a key can hold a code).
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { Context, Middleware } from 'koa';
import type { TracingSettings } from '../config.ts';
import { aroundEachOperation } from '../storage/around.ts';
import type { Store } from '../storage/store.ts';
import { routeLabel } from './access-log.ts';

/** What a call site may add to its span once it knows more (a verified method, an outcome). */
export type SpanNotes = { set(key: string, value: string | number | boolean): void };

export type Tracing = {
  readonly enabled: boolean;
  /** Runs `run` inside a span named `name`, a child of the request's span. */
  span<T>(name: string, attributes: Attributes, run: (notes: SpanNotes) => Promise<T>): Promise<T>;
  /** The request span (first in the middleware list); undefined when off. */
  middleware?: Middleware;
  /** A fetch for a chain's JSON-RPC transport that records `signet.rpc` spans; undefined when off. */
  rpcFetch?: (chainId: number) => typeof fetch;
  /** The store, each operation in a span (the store itself when off). */
  store(store: Store): Store;
  /** Sends what is buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
};

const NO_NOTES: SpanNotes = { set: () => {} };

export const NO_TRACING: Tracing = {
  enabled: false,
  span: (_name, _attributes, run) => run(NO_NOTES),
  store: (store) => store,
  shutdown: async () => {},
};

/** The first segments of a storage key, without ids (`oidc:AuthorizationCode:<code>` → `oidc:AuthorizationCode`). */
export function keyKind(key: string): string {
  const [first = '', second] = key.split(':');
  return first === 'oidc' && second ? `oidc:${second}` : first;
}

/** The JSON-RPC methods of a request body (one call or a batch), for the span; never the params. */
function rpcMethods(body: unknown): string[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as { method?: unknown } | { method?: unknown }[];
    return (Array.isArray(parsed) ? parsed : [parsed]).map((call) => String(call.method));
  } catch {
    return [];
  }
}

/** The SDK, its exporters and the W3C propagator, registered: the one place OpenTelemetry is imported. */
async function startSdk(settings: TracingSettings & { enabled: true }) {
  const [api, sdk, resources, core] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  const processors = [];
  for (const kind of settings.exporters) {
    if (kind === 'console') {
      processors.push(new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter()));
      continue;
    }
    const { OTLPTraceExporter } =
      settings.protocol === 'http/json'
        ? await import('@opentelemetry/exporter-trace-otlp-http')
        : await import('@opentelemetry/exporter-trace-otlp-proto');
    processors.push(new sdk.BatchSpanProcessor(new OTLPTraceExporter()));
  }
  // service.name: OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES), else signet-provider.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  const tracer: Tracer = provider.getTracer('signet');
  return { api, provider, tracer };
}

/** One SERVER span per request, continuing an incoming `traceparent`. */
function requestSpans(tracer: Tracer, api: typeof import('@opentelemetry/api')): Middleware {
  const { SpanKind, SpanStatusCode, context, propagation, trace, ROOT_CONTEXT } = api;
  return async (ctx: Context, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path.slice(0, 200), 'url.scheme': ctx.protocol },
      },
      parent,
    );
    ctx.state.traceId = span.spanContext().traceId;
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
      throw error;
    } finally {
      const route = routeLabel(ctx);
      span.updateName(`${ctx.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': ctx.status, 'signet.request_id': ctx.state.reqId });
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

/** Starts the SDK and returns the hooks. */
export async function startTracing(settings: TracingSettings & { enabled: true }): Promise<Tracing> {
  const { api, provider, tracer } = await startSdk(settings);
  const { SpanKind, SpanStatusCode, context, propagation, trace } = api;

  const inSpan = async <T>(name: string, options: { attributes: Attributes; kind?: number }, run: (span: Span) => Promise<T>) =>
    tracer.startActiveSpan(name, options, async (span) => {
      try {
        return await run(span);
      } catch (error) {
        // The error's name, not its message: messages can carry URLs and addresses.
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
        throw error;
      } finally {
        span.end();
      }
    });

  const middleware = requestSpans(tracer, api);

  const rpcFetch =
    (chainId: number): typeof fetch =>
    (input, init) => {
      const methods = rpcMethods(init?.body);
      return inSpan(
        'signet.rpc',
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'rpc.system': 'jsonrpc',
            'rpc.method': methods.join(','),
            'rpc.jsonrpc.batch_size': methods.length,
            'signet.chain_id': chainId,
          },
        },
        async (span) => {
          const response = await fetch(input, init);
          span.setAttribute('http.response.status_code', response.status);
          return response;
        },
      );
    };

  const store = (inner: Store): Store => {
    const attributes = (operation: string, key?: string): Attributes => ({
      'db.system.name': inner.kind,
      'db.operation.name': operation,
      ...(key === undefined ? {} : { 'signet.storage.key_kind': keyKind(key) }),
    });
    return aroundEachOperation(inner, (operation, { key, writes }, run) =>
      inSpan(
        `signet.storage.${operation}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            ...attributes(operation, key),
            // A batch (a request's writes): how many, and the kinds of key they touch.
            ...(writes
              ? {
                  'db.operation.batch.size': writes.length,
                  'signet.storage.key_kinds': [
                    ...new Set(writes.map((w) => keyKind(w.op === 'delete' ? (w.keys[0] ?? '') : w.key))),
                  ],
                }
              : {}),
          },
        },
        run,
      ),
    );
  };

  return {
    enabled: true,
    span: (name, attributes, run) =>
      inSpan(name, { attributes }, (span) => run({ set: (key, value) => span.setAttribute(key, value) })),
    middleware,
    rpcFetch,
    store,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
