import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import type { Storage } from '../../src/core/ports/storage.js';
import { createOtelRunTracer } from '../../src/adapters/telemetry/create-otel-run-tracer.js';

export const MAIN = `
rules:
  - steps:
      - tool_calls:
          - name: read_file
            args: { path: "missing.txt" }
          - name: task
            args: { subagent_slug: helper, description: "Investigate: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;
export const HELPER = `
rules:
  - steps:
      - text: "Helper report on <{{input}}>"
`;

/** Spans as they end, and a way to wait for the ones a test expects without sleeping. */
export function recordSpans() {
  const exporter = new InMemorySpanExporter();
  const waiters: { ready: () => boolean; resolve: () => void }[] = [];
  const notify: SpanProcessor = {
    onStart: () => undefined,
    onEnd: () => {
      for (const waiter of [...waiters]) {
        if (waiter.ready()) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), notify] });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    provider,
    spans,
    until(ready: (spans: ReadableSpan[]) => boolean): Promise<void> {
      return new Promise((resolve) => {
        if (ready(spans())) resolve();
        else waiters.push({ ready: () => ready(spans()), resolve });
      });
    },
    tracer: (storage: Storage) => createOtelRunTracer({ storage, tracer: provider.getTracer('test') }),
  };
}

export const runSpans = (spans: ReadableSpan[]) =>
  spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent');

export function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const matching = spans.filter((span) => span.name === name);
  expect(matching.map((span) => span.name)).toEqual([name]);
  return matching[0] as ReadableSpan;
}

export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
