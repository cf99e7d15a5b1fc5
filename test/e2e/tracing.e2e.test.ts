import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTracingSettings } from '../../src/tracing-settings.js';
import { decodeTraceRequest, type OtlpAttribute, type OtlpTraces } from '../helpers/otlp-protobuf.js';
import { startTestServer } from '../helpers/start-test-server.js';

interface ReceivedExport {
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: OtlpTraces;
}

/**
 * A minimal OTLP/HTTP receiver: accepts `POST /v1/traces` on loopback, decodes JSON or protobuf by the
 * content type as a collector does, and keeps what it got.
 */
async function startReceiver() {
  const received: ReceivedExport[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        received.push({
          path: request.url,
          contentType: request.headers['content-type'],
          authorization: request.headers.authorization,
          body: (request.headers['content-type'] ?? '').includes('application/x-protobuf')
            ? decodeTraceRequest(Buffer.concat(chunks))
            : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces),
        });
        // An empty ExportTraceServiceResponse, in the encoding of the request.
        const protobuf = (request.headers['content-type'] ?? '').includes('application/x-protobuf');
        response
          .writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' })
          .end(protobuf ? '' : '{}');
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const attribute = (attributes: OtlpAttribute[], key: string) => {
  const value = attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

describe('OTLP/HTTP export', () => {
  it('exports the spans of a run to the configured collector with its headers', async () => {
    const tracing = loadTracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-secret',
      OTEL_SERVICE_NAME: 'troupe-e2e',
    });
    const server = await startTestServer({ tracing });
    let runId: string;
    let conversationId: string;
    try {
      ({ runId, conversationId } = await server.chat('Hello traced world'));
      const awaited = await server.api(`/api/agent/runs/${runId}/await?timeout_ms=15000`);
      expect(((await awaited.json()) as { run: { status: string } }).run.status).toBe('completed');
    } finally {
      // Shutting down flushes the batch: every span has been exported when this resolves.
      await server.close();
    }

    expect(receiver.received.length).toBeGreaterThan(0);
    for (const request of receiver.received) {
      expect(request.contentType).toContain('application/json');
      expect(request.authorization).toBe('Bearer collector-secret');
    }
    const resourceSpans = receiver.received.flatMap((request) => request.body.resourceSpans);
    expect(resourceSpans.map((entry) => attribute(entry.resource.attributes, 'service.name'))).toContain(
      'troupe-e2e',
    );
    const spans = resourceSpans.flatMap((entry) => entry.scopeSpans.flatMap((scope) => scope.spans));
    const run = spans.find((span) => span.name === 'invoke_agent Assistant');
    expect(run).toBeDefined();
    expect(attribute(run?.attributes ?? [], 'troupe.run.id')).toBe(runId);
    expect(attribute(run?.attributes ?? [], 'gen_ai.conversation.id')).toBe(conversationId);
    const children = spans.filter((span) => span.parentSpanId === run?.spanId);
    expect(new Set(children.map((span) => span.name))).toEqual(
      new Set(['chat demo', 'execute_tool write_file', 'execute_tool read_file']),
    );
    expect(children.every((span) => span.traceId === run?.traceId)).toBe(true);
  });

  it('sends protobuf when OTEL_EXPORTER_OTLP_PROTOCOL asks, with OTEL_RESOURCE_ATTRIBUTES on the resource', async () => {
    receiver.received.length = 0;
    const tracing = loadTracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=staging,service.namespace=agents',
    });
    const server = await startTestServer({ tracing });
    let runId: string;
    try {
      ({ runId } = await server.chat('Hello protobuf'));
      await server.api(`/api/agent/runs/${runId}/await?timeout_ms=15000`);
    } finally {
      await server.close();
    }
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const request of receiver.received) expect(request.contentType).toBe('application/x-protobuf');
    const resources = receiver.received.flatMap((request) => request.body.resourceSpans);
    const resource = resources[0]?.resource.attributes ?? [];
    expect(attribute(resource, 'service.name')).toBe('troupe');
    expect(attribute(resource, 'deployment.environment')).toBe('staging');
    expect(attribute(resource, 'service.namespace')).toBe('agents');
    const spans = resources.flatMap((entry) => entry.scopeSpans.flatMap((scope) => scope.spans));
    const run = spans.find((span) => span.name === 'invoke_agent Assistant');
    expect(attribute(run?.attributes ?? [], 'troupe.run.id')).toBe(runId);
    expect(run?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.some((span) => span.parentSpanId === run?.spanId && span.name === 'chat demo')).toBe(true);
  });
});
