import { z } from 'zod';
import { RUN_STATUSES, RUN_TYPES, type Run } from '../records/run.js';

export const EVIDENCE_FLAGS = [
  'no_tool_calls',
  'unreturned_children',
  'budget_exhausted',
  'tool_failures',
  'remote_reported',
  'no_remote_evidence',
] as const;

/**
 * What a remote A2A expert's task exposed to this server (docs/verified-delegation.md#remote-experts): its final
 * state, its artifacts and how many messages it sent, and whether its server reported evidence of its own.
 */
export const remoteTaskSchema = z.strictObject({
  task_id: z.string(),
  context_id: z.string().nullable(),
  state: z.string().describe('The A2A task state it ended in, e.g. TASK_STATE_COMPLETED'),
  artifacts: z
    .array(z.strictObject({ artifact_id: z.string(), name: z.string(), chars: z.number().int() }))
    .describe("The task's artifacts: id, name and text length"),
  messages: z.number().int().describe('Status messages and direct replies the task sent'),
  reported_by: z
    .enum(['troupe', 'a2a'])
    .describe("troupe: another Troupe server reported its run's evidence; a2a: only what A2A exposes"),
});
export type RemoteTask = z.infer<typeof remoteTaskSchema>;

/** Tools whose successful call writes the file named by its `path` argument (docs/verified-delegation.md#evidence). */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/**
 * What a child run did, from the runtime's records, never from the child's words
 * (docs/verified-delegation.md#evidence).
 */
export const evidenceSchema = z
  .strictObject({
    run_id: z.string(),
    status: z.enum(RUN_STATUSES),
    model_calls: z.number().int(),
    tokens: z.strictObject({ input: z.number(), output: z.number(), total: z.number() }),
    tool_calls: z
      .record(z.string(), z.strictObject({ calls: z.number().int(), failed: z.number().int() }))
      .describe('Per tool name: calls made and how many of them failed'),
    tool_calls_total: z.number().int(),
    tool_calls_failed: z.number().int(),
    files_written: z.array(z.string()).describe('Paths written by successful write_file / edit_file calls'),
    artifacts: z.array(z.string()).describe('Paths of the artifacts the run presented'),
    children: z
      .array(z.strictObject({ run_id: z.string(), kind: z.enum(RUN_TYPES), status: z.enum(RUN_STATUSES) }))
      .describe('Runs the child started itself, and how each ended (or that it has not)'),
    flags: z
      .array(z.enum(EVIDENCE_FLAGS))
      .describe(
        "no_tool_calls, unreturned_children (a run it started did not complete), budget_exhausted, tool_failures; a remote expert's: remote_reported, no_remote_evidence",
      ),
    remote: remoteTaskSchema
      .optional()
      .describe(
        "A remote A2A expert's task: what the task exposed (the other fields are what its server reported)",
      ),
  })
  .describe(
    "What the child did, computed by the runtime from its stored records, never from the child's words",
  );
export type Evidence = z.infer<typeof evidenceSchema>;
export type EvidenceFlag = Evidence['flags'][number];

/** The child's event types evidence reads (one query: `events.listOfTypes`). */
export const EVIDENCE_EVENT_TYPES = ['tool_call', 'tool_result', 'artifact'] as const;

/** The parts of those events evidence reads (structural: the run event union is not imported here). */
export type EvidenceEvent =
  | { type: 'tool_call'; payload: { tool_call_id: string; name: string; args?: unknown } }
  | { type: 'tool_result'; payload: { tool_call_id: string; name: string; is_error: boolean } }
  | { type: 'artifact'; payload: { artifact: { path: string } } };

/** The evidence fields the run row gives: which run, how it ended, its usage. */
export function runFacts(
  run: Pick<Run, 'id' | 'status' | 'usage'>,
): Pick<Evidence, 'run_id' | 'status' | 'model_calls' | 'tokens'> {
  return {
    run_id: run.id,
    status: run.status,
    model_calls: run.usage?.model_calls ?? 0,
    tokens: {
      input: run.usage?.input_tokens ?? 0,
      output: run.usage?.output_tokens ?? 0,
      total: run.usage?.total_tokens ?? 0,
    },
  };
}

/**
 * The evidence of `run` from its own tool events and the runs it started. Pure: the caller reads the
 * records (docs/verified-delegation.md#evidence).
 */
export function computeEvidence(
  run: Pick<Run, 'id' | 'status' | 'usage' | 'error'>,
  /** The run's events of `EVIDENCE_EVENT_TYPES`, in order. */
  events: readonly { type: string; payload: unknown }[],
  children: readonly Pick<Run, 'id' | 'run_type' | 'status'>[],
): Evidence {
  const calls = new Map<string, { name: string; path: string | undefined }>();
  const tools: Evidence['tool_calls'] = {};
  const written = new Set<string>();
  const artifacts: string[] = [];
  let total = 0;
  let failed = 0;
  for (const event of events as readonly EvidenceEvent[]) {
    if (event.type === 'tool_call') {
      const args = event.payload.args as { path?: unknown } | null | undefined;
      calls.set(event.payload.tool_call_id, {
        name: event.payload.name,
        path: typeof args?.path === 'string' ? args.path : undefined,
      });
    } else if (event.type === 'tool_result') {
      const name = event.payload.name;
      const entry = (tools[name] ??= { calls: 0, failed: 0 });
      entry.calls += 1;
      total += 1;
      if (event.payload.is_error) {
        entry.failed += 1;
        failed += 1;
      } else {
        const path = calls.get(event.payload.tool_call_id)?.path;
        if (WRITING_TOOLS.has(name) && path !== undefined) written.add(path);
      }
    } else if (event.type === 'artifact') {
      artifacts.push(event.payload.artifact.path);
    }
  }
  const flags: EvidenceFlag[] = [];
  if (total === 0) flags.push('no_tool_calls');
  if (failed > 0) flags.push('tool_failures');
  if (children.some((child) => child.status !== 'completed')) flags.push('unreturned_children');
  if (run.error?.type === 'budget_exhausted') flags.push('budget_exhausted');
  return {
    ...runFacts(run),
    tool_calls: tools,
    tool_calls_total: total,
    tool_calls_failed: failed,
    files_written: [...written],
    artifacts,
    children: children.map((child) => ({ run_id: child.id, kind: child.run_type, status: child.status })),
    flags,
  };
}

/**
 * The short form the parent model reads in its tool result: one line, paid on every later step, so it names
 * counts and flags only (docs/verified-delegation.md#what-the-parent-model-sees).
 */
export function evidenceLine(evidence: Evidence): string {
  const tools = Object.entries(evidence.tool_calls)
    .map(([name, { calls, failed }]) =>
      failed > 0 ? `${name}×${calls} (${failed} failed)` : `${name}×${calls}`,
    )
    .join(', ');
  const remote = evidence.remote;
  const parts = [
    ...(remote ? [`remote task ${remote.state.replace('TASK_STATE_', '').toLowerCase()}`] : []),
    `${evidence.model_calls} model calls`,
    remote?.reported_by === 'a2a'
      ? 'tools: not reported'
      : evidence.tool_calls_total === 0
        ? 'no tool calls'
        : `tools: ${tools}`,
    ...(evidence.files_written.length > 0 ? [`wrote: ${evidence.files_written.slice(0, 5).join(', ')}`] : []),
    ...(evidence.artifacts.length > 0 ? [`artifacts: ${evidence.artifacts.length}`] : []),
    ...(evidence.children.length > 0
      ? [`children: ${evidence.children.map((child) => child.status).join(', ')}`]
      : []),
    `${evidence.tokens.total} tokens`,
    ...(evidence.flags.length > 0 ? [`flags: ${evidence.flags.join(', ')}`] : []),
  ];
  return `[evidence] ${parts.join('; ')}`;
}
