import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run, TokenUsage } from '../../core/records/run.js';
import type { ModelCallUsage, UsageDetail } from '../../core/runs/run-usage.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';
import { RunAbortError } from '../../core/runs/run-abort.js';
import type { RunTracer } from '../../core/ports/run-tracer.js';
import { withTraceparent } from '../../core/trace/trace-carrier.js';
import { GEN_AI, modelAttributes, TROUPE } from './gen-ai-attributes.js';

export interface OtelRunTracerOptions {
  /** Read once a run's execution settles, for its final status, error and usage. */
  storage: Storage;
  tracer: Tracer;
  /** Flushes and stops the span pipeline (the provider's shutdown). */
  shutdown?: () => Promise<void>;
}

interface TracedRun {
  span: Span;
  /** The context that makes the run's span the parent of its model and tool spans. */
  context: Context;
  conversationId: string;
}

const ERROR_STATUSES: ReadonlySet<string> = new Set(['failed', 'interrupted', 'cancelled']);
/** Tool error texts can be long (a stack of a failing command); a span status needs only the gist. */
const MAX_STATUS_MESSAGE = 500;

function clip(text: string): string {
  return text.length > MAX_STATUS_MESSAGE ? `${text.slice(0, MAX_STATUS_MESSAGE)}…` : text;
}

/** `error.type`: Troupe's stable code when there is one, else the error's class. */
function errorType(thrown: unknown): string {
  if (isTroupeError(thrown)) return thrown.code;
  if (thrown instanceof RunAbortError) return thrown.kind === 'cancel' ? 'cancelled' : thrown.kind;
  if (thrown instanceof Error) return thrown.name;
  return '_OTHER';
}

function markFailed(span: Span, type: string, message: string): void {
  span.setAttribute(GEN_AI.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: clip(message) });
}

function markThrown(span: Span, thrown: unknown): void {
  markFailed(span, errorType(thrown), thrown instanceof Error ? thrown.message : String(thrown));
}

/** The `gen_ai.usage.*` attributes of tokens one span covers (cache and reasoning details only when reported). */
function usageAttributes(usage: ModelCallUsage): Attributes {
  const attributes: Attributes = {
    [GEN_AI.usageInputTokens]: usage.input_tokens,
    [GEN_AI.usageOutputTokens]: usage.output_tokens,
  };
  if (usage.cache_read_tokens) attributes[GEN_AI.usageCacheReadTokens] = usage.cache_read_tokens;
  if (usage.cache_write_tokens) attributes[GEN_AI.usageCacheWriteTokens] = usage.cache_write_tokens;
  if (usage.reasoning_tokens) attributes[GEN_AI.usageReasoningTokens] = usage.reasoning_tokens;
  return attributes;
}

function usageDelta(before: TokenUsage | null, after: TokenUsage | null): ModelCallUsage {
  const delta = (key: 'input_tokens' | 'output_tokens' | UsageDetail) =>
    (after?.[key] ?? 0) - (before?.[key] ?? 0);
  return {
    input_tokens: delta('input_tokens'),
    output_tokens: delta('output_tokens'),
    cache_read_tokens: delta('cache_read_tokens'),
    cache_write_tokens: delta('cache_write_tokens'),
    reasoning_tokens: delta('reasoning_tokens'),
  };
}

/** A retry's or fallback's fields as span event attributes, namespaced like Troupe's other attributes. */
function noticeAttributes(fields: Record<string, unknown>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string' || typeof value === 'number')
      attributes[`troupe.model_call.${key}`] = value;
  }
  return attributes;
}

/**
 * GenAI spans over the OpenTelemetry API: `invoke_agent {agent}` per run execution, `chat {model}` per model
 * call and `execute_tool {tool}` per tool call. Parentage is explicit (no global context manager): model and
 * tool spans hang under their run's span, and a child run's span under the tool call that started it,
 * through the `traceparent` the child carries in its input — so the tree holds across worker processes.
 */
export function createOtelRunTracer(options: OtelRunTracerOptions): RunTracer {
  const { storage, tracer } = options;
  const propagator = new W3CTraceContextPropagator();
  const traced = new Map<string, TracedRun>();

  function parentContext(run: Run): Context {
    const traceparent = run.input.traceparent;
    if (typeof traceparent !== 'string') return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  }

  function traceparentOf(span: Span): string | undefined {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
    return carrier.traceparent;
  }

  async function endRunSpan(span: Span, run: Run): Promise<void> {
    const final = await storage.runs.get(run.id);
    if (!final) return;
    span.setAttribute(TROUPE.runStatus, final.status);
    // The usage row is cumulative over attempts; this span covers one execution.
    span.setAttributes(usageAttributes(usageDelta(run.usage, final.usage)));
    if (ERROR_STATUSES.has(final.status)) {
      markFailed(
        span,
        final.error?.type ?? final.status,
        final.error?.message ?? `The run ended ${final.status}`,
      );
    }
  }

  function layer(entry: TracedRun, run: Run, agent: Agent): AgentMiddleware {
    const common: Attributes = {
      [GEN_AI.conversationId]: entry.conversationId,
      [GEN_AI.agentId]: agent.id,
      [GEN_AI.agentName]: agent.name,
      [TROUPE.runId]: run.id,
    };
    return {
      name: 'tracing',
      async wrapModelCall(request, next) {
        const { provider, model } = modelAttributes(request.model.spec);
        const span = tracer.startSpan(
          `chat ${model}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              ...common,
              [GEN_AI.operationName]: 'chat',
              [GEN_AI.providerName]: provider,
              [GEN_AI.requestModel]: model,
              [TROUPE.modelSpec]: request.model.spec,
              [TROUPE.step]: request.step,
            },
          },
          entry.context,
        );
        try {
          // One `chat` span per logical call; its retries and fallbacks are events on it (docs/model-calls.md).
          const result = await next({
            ...request,
            observe: (notice) => {
              const { type, ...fields } = notice;
              span.addEvent(type, noticeAttributes(fields));
              request.observe?.(notice);
            },
          });
          span.setAttributes({
            ...usageAttributes(result.usage),
            [GEN_AI.responseFinishReasons]: [result.finishReason],
            ...(result.model
              ? {
                  [GEN_AI.responseModel]: modelAttributes(result.model).model,
                  [TROUPE.modelAnswered]: result.model,
                }
              : {}),
          });
          return result;
        } catch (thrown) {
          markThrown(span, thrown);
          throw thrown;
        } finally {
          span.end();
        }
      },
      async wrapToolCall(request, next) {
        const span = tracer.startSpan(
          `execute_tool ${request.toolName}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              ...common,
              [GEN_AI.operationName]: 'execute_tool',
              [GEN_AI.toolName]: request.toolName,
              [GEN_AI.toolCallId]: request.toolCallId,
              [GEN_AI.toolType]: 'function',
              ...(request.tool ? { [GEN_AI.toolDescription]: clip(request.tool.description) } : {}),
            },
          },
          entry.context,
        );
        try {
          const traceparent = traceparentOf(span);
          // Runs this call starts (task, subagent_start, delegate) record it and become children of this span.
          const result = await (traceparent === undefined
            ? next(request)
            : withTraceparent(traceparent, () => next(request)));
          if (result.isError) {
            const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
            markFailed(span, 'tool_error', output);
          }
          return result;
        } catch (thrown) {
          // Waiting for a human decision is a pause of the call, not a failure of it.
          if (thrown instanceof ApprovalPendingError) span.setAttribute(TROUPE.awaitingApproval, true);
          else markThrown(span, thrown);
          throw thrown;
        } finally {
          span.end();
        }
      },
    };
  }

  return {
    async traceRun(run, execute) {
      const { provider, model } = modelAttributes(run.model_spec);
      const span = tracer.startSpan(
        // Renamed to `invoke_agent {name}` once the run's agent is resolved (the middleware factory below).
        'invoke_agent',
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [GEN_AI.operationName]: 'invoke_agent',
            [GEN_AI.providerName]: provider,
            [GEN_AI.requestModel]: model,
            [GEN_AI.agentId]: run.agent_id,
            [GEN_AI.conversationId]: run.conversation_id,
            [TROUPE.modelSpec]: run.model_spec,
            [TROUPE.runId]: run.id,
            [TROUPE.runType]: run.run_type,
            [TROUPE.runAttempt]: run.attempt,
            [TROUPE.rootRunId]: run.root_run_id,
            [TROUPE.depth]: run.depth,
            ...(run.created_by_run_id ? { [TROUPE.parentRunId]: run.created_by_run_id } : {}),
          },
        },
        parentContext(run),
      );
      traced.set(run.id, {
        span,
        context: trace.setSpan(ROOT_CONTEXT, span),
        conversationId: run.conversation_id,
      });
      try {
        await execute();
      } catch (thrown) {
        markThrown(span, thrown);
        throw thrown;
      } finally {
        traced.delete(run.id);
        // Tracing must never fail a run: a failed read only leaves the span without its outcome.
        await endRunSpan(span, run).catch(() => undefined);
        span.end();
      }
    },

    middleware: ({ run, agent }) => {
      const entry = traced.get(run.id);
      if (!entry) return Promise.resolve([]);
      // An inline subagent plays a spec of its parent agent: the resolved agent carries the spec's name.
      entry.span.updateName(`invoke_agent ${agent.name}`);
      entry.span.setAttributes({
        [GEN_AI.agentId]: agent.id,
        [GEN_AI.agentName]: agent.name,
        ...(agent.description ? { [GEN_AI.agentDescription]: clip(agent.description) } : {}),
      });
      return Promise.resolve([layer(entry, run, agent)]);
    },

    shutdown: () => options.shutdown?.() ?? Promise.resolve(),
  };
}
