/**
 * OpenTelemetry traces, turned on by the standard variables only (OTEL_TRACES_EXPORTER,
 * OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME), exported to an
 * OTLP/HTTP receiver on loopback that this test runs. One sign-in of a gated client by an account
 * with an ENS name, on a real local chain: its request continues the caller's `traceparent`, and
 * its spans (signature, access check, ENS, their JSON-RPC calls, storage) hang from the request's,
 * with no URL credential, code or key in them. Then the same with the protobuf encoding.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@signet/provider';
import { startTestchain, type Testchain, type TestToken } from '@signet/testchain';
import {
  CookieJar,
  followToClient,
  getDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  request,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Span = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes: Record<string, unknown>;
};

/** An OTLP/HTTP receiver: keeps every export's raw body and its decoded spans. */
async function startReceiver(decode: (body: Buffer) => { spans: Span[]; serviceNames: string[] }) {
  const bodies: Buffer[] = [];
  const spans: Span[] = [];
  const serviceNames = new Set<string>();
  const contentTypes = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url === '/v1/traces') {
        bodies.push(body);
        contentTypes.add(String(req.headers['content-type']));
        const decoded = decode(body);
        spans.push(...decoded.spans);
        for (const name of decoded.serviceNames) serviceNames.add(name);
      }
      res.writeHead(200, { 'content-type': String(req.headers['content-type']) }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    serviceNames,
    contentTypes,
    raw: () => Buffer.concat(bodies).toString('latin1'),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** OTLP JSON: ids in hex, attribute values as { stringValue | intValue | boolValue | … }. */
function decodeJson(body: Buffer) {
  type KeyValue = { key: string; value: Record<string, unknown> };
  const flat = (attributes: KeyValue[] = []) =>
    Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: (Span & { attributes: KeyValue[] })[] }[] }[];
  };
  const spans: Span[] = [];
  const serviceNames: string[] = [];
  for (const resourceSpans of request.resourceSpans) {
    serviceNames.push(String(flat(resourceSpans.resource.attributes)['service.name']));
    for (const scope of resourceSpans.scopeSpans) {
      for (const span of scope.spans) spans.push({ ...span, attributes: flat(span.attributes) });
    }
  }
  return { spans, serviceNames };
}

/** Protobuf wire format, just what an ExportTraceServiceRequest needs (OTLP's trace.proto field numbers). */
function protoFields(buffer: Buffer): { field: number; value: Buffer | bigint }[] {
  const out: { field: number; value: Buffer | bigint }[] = [];
  let at = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >> 3, tag & 7];
    if (wire === 0) out.push({ field, value: varint() });
    else if (wire === 2) {
      const length = Number(varint());
      out.push({ field, value: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`wire type ${wire}`);
  }
  return out;
}

function decodeProtobuf(body: Buffer) {
  const children = (buffer: Buffer, field: number) =>
    protoFields(buffer)
      .filter((f) => f.field === field)
      .map((f) => f.value as Buffer);
  const text = (buffer: Buffer, field: number) => children(buffer, field)[0]?.toString('utf8');
  const hex = (buffer: Buffer, field: number) => children(buffer, field)[0]?.toString('hex') || undefined;
  const attributes = (buffer: Buffer, field: number) =>
    Object.fromEntries(
      children(buffer, field).map((kv) => [text(kv, 1), (children(kv, 2)[0] && text(children(kv, 2)[0] as Buffer, 1)) ?? '']),
    );
  const spans: Span[] = [];
  const serviceNames: string[] = [];
  for (const resourceSpans of children(body, 1)) {
    for (const resource of children(resourceSpans, 1)) serviceNames.push(String(attributes(resource, 1)['service.name']));
    for (const scopeSpans of children(resourceSpans, 2)) {
      for (const span of children(scopeSpans, 2)) {
        spans.push({
          traceId: hex(span, 1) as string,
          spanId: hex(span, 2) as string,
          parentSpanId: hex(span, 4),
          name: text(span, 5) as string,
          attributes: attributes(span, 9),
        });
      }
    }
  }
  return { spans, serviceNames };
}

/** The SDK reads its variables from the environment itself, as in production. */
function otelEnvironment(endpoint: string, protocol: string) {
  const env = {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'signet-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  Object.assign(process.env, env);
  const restore = () => {
    for (const key of Object.keys(env)) delete process.env[key];
  };
  return { env, restore };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('tracing over OTLP/HTTP with JSON', () => {
  let chain: Testchain;
  let erc721: TestToken;
  let provider: TestProvider;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let restore: () => void;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    chain = await startTestchain({ chainId: 1 });
    erc721 = await chain.deployToken('erc721');
    receiver = await startReceiver(decodeJson);
    const otel = otelEnvironment(receiver.url, 'http/json');
    restore = otel.restore;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).trim().split('\n')) logLines.push(JSON.parse(line));
        done();
      },
    });
    provider = await startTestProvider(
      { ...otel.env, ETH_RPC_URL: chain.url, ENS_RPC_URL: chain.url, ACCESS_CACHE_SECONDS: '0' },
      { logger: createLogger('info', sink) },
    );
  });
  afterAll(async () => {
    await provider?.stop();
    restore?.();
    await receiver?.stop();
    await chain?.stop();
  });

  it("one sign-in: the request continues the caller's trace; verify, access, ENS, RPC and storage spans hang from it", async () => {
    const registered = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      {
        redirect_uris: [TEST_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: erc721.address }] },
      } as Partial<oidc.ClientMetadata>,
      oidc.None(),
      insecure,
    );
    const account = privateKeyToAccount(generatePrivateKey());
    await erc721.mint(account.address, { id: 1n });
    await chain.setEnsName(account.address, 'traced.eth');

    const jar = new CookieJar();
    const { url, verifier } = await pkceAuthorization(registered);
    const interactionUrl = await startInteraction(jar, url);
    const details = await getDetails(jar, interactionUrl);
    const message = messageFor(details, account.address);
    const posted = await request(jar, interactionUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
    });
    expect(posted.status).toBe(303);
    const callback = await followToClient(jar, interactionUrl, posted.headers.get('location') as string);
    const code = callback.searchParams.get('code') as string;
    const tokens = await oidc.authorizationCodeGrant(registered, callback, { pkceCodeVerifier: verifier });

    // The request span continues the caller's trace; everything the sign-in did hangs from it.
    let server: Span | undefined;
    const inTrace = () => receiver.spans.filter((span) => span.traceId === TRACE_ID);
    await expect
      .poll(() => {
        server = inTrace().find((span) => span.name === 'POST interaction');
        return server !== undefined && inTrace().some((span) => span.name === 'signet.ens.resolve');
      })
      .toBe(true);
    expect(server).toMatchObject({
      parentSpanId: CALLER_SPAN,
      kind: 2, // SERVER
      attributes: { 'http.request.method': 'POST', 'http.route': 'interaction', 'http.response.status_code': 303 },
    });
    const spans = inTrace();
    const child = (name: string) => spans.filter((span) => span.name === name && span.parentSpanId === server?.spanId);
    expect(child('signet.siwe.verify')).toHaveLength(1);
    expect(child('signet.siwe.verify')[0]?.attributes).toMatchObject({ 'signet.siwe.method': 'eoa', 'signet.chain_id': 1 });
    const [access] = child('signet.access.check');
    const [ens] = child('signet.ens.resolve');
    expect(access && ens).toBeTruthy();
    // The holdings read and the ENS lookups are JSON-RPC calls on chain 1, each in its own span.
    const rpcUnder = (parent: Span | undefined) =>
      spans.filter((span) => span.name === 'signet.rpc' && span.parentSpanId === parent?.spanId);
    expect(rpcUnder(access).map((span) => span.attributes['rpc.method'])).toEqual(['eth_call']);
    expect(rpcUnder(ens).length).toBeGreaterThan(0);
    for (const span of [...rpcUnder(access), ...rpcUnder(ens)]) {
      expect(span).toMatchObject({ kind: 3, attributes: { 'rpc.system': 'jsonrpc', 'signet.chain_id': 1 } }); // CLIENT
    }
    // Storage: the sign-in's writes, by kind of key (a request's writes are one batch span).
    const storage = spans.filter((span) => span.name.startsWith('signet.storage.'));
    // (OTLP/JSON carries a list attribute as { values: [{ stringValue }] }.)
    const kinds = (span: Span) => {
      const list = span.attributes['signet.storage.key_kinds'] as { values: { stringValue: string }[] } | undefined;
      return list ? list.values.map((v) => v.stringValue) : [span.attributes['signet.storage.key_kind']];
    };
    expect(storage.flatMap(kinds)).toEqual(expect.arrayContaining(['interaction', 'oidc:Grant']));
    expect(receiver.serviceNames).toEqual(new Set(['signet-under-test']));

    // The access log line of that request carries the trace id.
    const logged = logLines.find((line) => line.route === 'interaction' && line.method === 'POST');
    expect(logged?.trace_id).toBe(TRACE_ID);

    // Nothing secret went out: not the RPC URL, not the code, not a token.
    await expect.poll(() => receiver.spans.some((span) => span.name === 'POST token')).toBe(true);
    const exported = receiver.raw();
    expect(exported).not.toContain(chain.url);
    for (const secret of [code, tokens.access_token, tokens.id_token as string]) expect(exported).not.toContain(secret);
  });

  it('a request without traceparent starts its own trace', async () => {
    const response = await fetch(`${provider.url}/health/ready`);
    expect(response.status).toBe(200);
    await expect.poll(() => receiver.spans.filter((span) => span.name === 'GET health').length).toBeGreaterThan(0);
    const span = receiver.spans.find((s) => s.name === 'GET health');
    expect(span?.traceId).not.toBe(TRACE_ID);
    expect(span?.parentSpanId ?? '').toBe('');
  });
});

describe('tracing over OTLP/HTTP with protobuf (the default encoding)', () => {
  it('exports protobuf spans that continue the traceparent', async () => {
    const receiver = await startReceiver(decodeProtobuf);
    const otel = otelEnvironment(receiver.url, 'http/protobuf');
    const provider = await startTestProvider(otel.env);
    try {
      const response = await fetch(`${provider.url}/health/ready`, {
        headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
      });
      expect(response.status).toBe(200);
      await expect.poll(() => receiver.spans.some((span) => span.name === 'GET health')).toBe(true);
      expect(receiver.contentTypes).toEqual(new Set(['application/x-protobuf']));
      expect(receiver.spans.find((span) => span.name === 'GET health')).toMatchObject({
        traceId: TRACE_ID,
        parentSpanId: CALLER_SPAN,
        attributes: { 'http.route': 'health' },
      });
      expect(receiver.serviceNames).toEqual(new Set(['signet-under-test']));
    } finally {
      await provider.stop();
      otel.restore();
      await receiver.stop();
    }
  });

  it('off by default: no OTEL_* variable, nothing exported and no trace id in the log', async () => {
    const receiver = await startReceiver(decodeProtobuf);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line));
        done();
      },
    });
    const provider = await startTestProvider({}, { logger: createLogger('debug', sink) });
    try {
      expect(provider.app.services.tracing.enabled).toBe(false);
      expect((await fetch(`${provider.url}/health/ready`)).status).toBe(200);
      expect(lines.find((line) => line.route === 'health')).not.toHaveProperty('trace_id');
    } finally {
      await provider.stop();
      await receiver.stop();
    }
    expect(receiver.spans).toEqual([]);
  });
});
