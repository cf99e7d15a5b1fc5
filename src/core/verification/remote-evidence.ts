import { z } from 'zod';
import type { Run } from '../records/run.js';
import { evidenceSchema, remoteTaskSchema, runFacts, type Evidence, type EvidenceFlag } from './evidence.js';

/** The tool span a remote expert's run records for its remote task (docs/interoperability.md#remote-a2a-experts). */
export const REMOTE_TASK_TOOL = 'a2a_remote_task';

/**
 * What a remote expert's run keeps of its remote task when the task ends, on the `a2a_remote_task` tool result:
 * what the task exposed, and the evidence its server reported (another Troupe does), as received.
 */
export const remoteReportSchema = z
  .strictObject({
    task: remoteTaskSchema,
    reported: evidenceSchema
      .nullable()
      .describe("The remote Troupe run's own evidence; null when the remote reported none"),
  })
  .describe("What a remote expert's task exposed and reported (docs/verified-delegation.md#remote-experts)");
export type RemoteReport = z.infer<typeof remoteReportSchema>;

/** The evidence a remote server reported in its task's metadata, when it is evidence this server can read. */
export function readReportedEvidence(raw: unknown): Evidence | null {
  const parsed = evidenceSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/**
 * A remote expert's run's evidence: its usage is the local run's (the remote's reported usage counts there), the
 * rest is what the remote reported, flagged `remote_reported`; a remote that reported nothing is also
 * `no_remote_evidence`, and its tool calls are unknown rather than none (no `no_tool_calls`).
 */
export function remoteEvidence(
  run: Pick<Run, 'id' | 'status' | 'usage' | 'error'>,
  report: RemoteReport,
): Evidence {
  const { reported } = report;
  const flags = new Set<EvidenceFlag>(['remote_reported', ...(reported ? reported.flags : [])]);
  if (!reported) flags.add('no_remote_evidence');
  if (run.error?.type === 'budget_exhausted') flags.add('budget_exhausted');
  return {
    ...runFacts(run),
    tool_calls: reported?.tool_calls ?? {},
    tool_calls_total: reported?.tool_calls_total ?? 0,
    tool_calls_failed: reported?.tool_calls_failed ?? 0,
    files_written: reported?.files_written ?? [],
    artifacts: reported?.artifacts ?? [],
    children: reported?.children ?? [],
    flags: [...flags],
    remote: { ...report.task, reported_by: reported ? 'troupe' : 'a2a' },
  };
}

/**
 * The remote report among a run's evidence events: the `a2a_remote_task` result's, or, when the task never
 * ended here (the remote was lost mid-task), a report of the task's id with nothing exposed. Undefined for a
 * run that is not a remote expert's.
 */
export function remoteReportOf(
  events: readonly { type: string; payload: unknown }[],
): RemoteReport | undefined {
  let found: RemoteReport | undefined;
  for (const event of events) {
    const payload = event.payload as { name?: unknown; args?: unknown; remote_evidence?: unknown };
    if (payload.name !== REMOTE_TASK_TOOL) continue;
    if (event.type === 'tool_result') {
      const parsed = remoteReportSchema.safeParse(payload.remote_evidence);
      if (parsed.success) return parsed.data;
    }
    if (event.type === 'tool_call' && found === undefined) {
      const args = (payload.args ?? {}) as { task_id?: unknown; context_id?: unknown };
      found = {
        task: {
          task_id: typeof args.task_id === 'string' ? args.task_id : '',
          context_id: typeof args.context_id === 'string' ? args.context_id : null,
          state: 'TASK_STATE_UNSPECIFIED',
          artifacts: [],
          messages: 0,
          reported_by: 'a2a',
        },
        reported: null,
      };
    }
  }
  return found;
}
