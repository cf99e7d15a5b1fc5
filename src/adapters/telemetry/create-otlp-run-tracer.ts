import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Storage } from '../../core/ports/storage.js';
import type { RunTracer } from '../../core/ports/run-tracer.js';
import type { TracingSettings } from '../../tracing-settings.js';
import { createOtelRunTracer } from './create-otel-run-tracer.js';

export const TRACER_NAME = 'troupe';

/**
 * Says once when exports start failing and once when they recover: the SDK itself reports nothing unless a
 * global diagnostic logger is installed, and a collector that is down must not flood the log either.
 */
function reportingFailures(
  exporter: SpanExporter,
  endpoint: string,
  warn: (message: string) => void,
): SpanExporter {
  let failing = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && !failing) {
          failing = true;
          warn(
            `Trace export to ${endpoint} failed (${result.error?.message ?? 'unknown error'}); spans are dropped until it works again`,
          );
        } else if (result.code === ExportResultCode.SUCCESS && failing) {
          failing = false;
          warn(`Trace export to ${endpoint} works again`);
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * The OTLP/HTTP pipeline (protobuf or JSON bodies, as configured): spans are batched and exported in the background, so a slow or absent collector
 * never delays a run. `main.ts` imports this module only when tracing is configured; without it none of
 * the OpenTelemetry SDK is loaded. No global provider is registered: the spans are Troupe's own.
 */
export function createOtlpRunTracer(
  settings: TracingSettings,
  storage: Storage,
  warn: (message: string) => void,
): RunTracer {
  const options = { url: settings.endpoint, headers: settings.headers };
  const exporter =
    settings.protocol === 'http/protobuf'
      ? new OTLPProtobufTraceExporter(options)
      : new OTLPJsonTraceExporter(options);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      'service.name': settings.serviceName,
    }),
    spanProcessors: [new BatchSpanProcessor(reportingFailures(exporter, settings.endpoint, warn))],
  });
  return createOtelRunTracer({
    storage,
    tracer: provider.getTracer(TRACER_NAME),
    shutdown: () => provider.shutdown(),
  });
}
