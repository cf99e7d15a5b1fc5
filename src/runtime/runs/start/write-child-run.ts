import { newRunId } from '../../../core/ids.js';
import { settleInOrder } from '../../../core/settle-in-order.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import type { SubagentThread } from '../../../core/records/conversation.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import { buildNewRun } from '../../../core/runs/build-new-run.js';
import type { AdoptedCommit } from '../../../core/tools/adopt-checkpoint.js';
import { openRootBudget } from '../../budgets/open-run-budget.js';
import type { RunContext } from '../execute/load-run-context.js';
import { appendSubagentUpdate } from '../children/publish-subagent-update.js';
import type { CheckedChildStart } from './check-child-start.js';
import type { ChildRunDeps, ChildRunSpec } from './child-run-spec.js';
import { firstAttemptContext } from './first-attempt-context.js';
import type { RunReservation } from './local-run-starts.js';

/** The child's rows as written, and what the start does with them once committed. */
export interface WrittenChildRun {
  run: Run;
  /** The child's subagent thread relation, when it has one. */
  relation: SubagentThread | undefined;
  /** The child's first message as stored: handed to its first attempt (`RunHandoffs`). */
  appended: ThreadMessage[];
  /** Its first attempt's context, when the start read or wrote all of it. */
  context: RunContext | undefined;
  /** The parent's `subagent_update`s, published after the commit. */
  announced: RunEvent[];
  /** The adopted checkpoint's events as appended with the child's, when the start took one. */
  checkpointed: RunEvent[] | undefined;
}

/**
 * Writes the child's run (claimed into `reservation` when a slot was free), its ledger, its first message and
 * its parent's updates, with the adopted checkpoint's messages and events in the same inserts as the child's own.
 */
export async function writeChildRun(
  tx: Storage,
  deps: ChildRunDeps,
  spec: ChildRunSpec,
  checked: CheckedChildStart,
  written: {
    adopted: AdoptedCommit | undefined;
    reservation: RunReservation | undefined;
    trace: { traceparent?: string };
  },
): Promise<WrittenChildRun> {
  const { read, parent, threadId, requestId, agent, ledger, home } = checked;
  const { adopted, reservation } = written;
  const runId = spec.runId ?? newRunId();
  // Sent behind the home's rows, before they answered: the start's second round trip carries both.
  const inserting = tx.runs.insert(
    buildNewRun({
      id: runId,
      run_type: spec.kind,
      channel: spec.channel,
      user_id: spec.userId,
      agent,
      thread_id: threadId,
      conversation_id: home.conversationId,
      parent,
      request_id: requestId,
      fallback_model: spec.inheritsParentModel && parent ? parent.model_spec : deps.defaultModel,
      subagent_thread_relation_id: home.relationId ?? null,
      input: {
        message: spec.message,
        ...(spec.toolCallId === undefined ? {} : { parent_tool_call_id: spec.toolCallId }),
        ...spec.input(agent),
        // Status updates on the parent's stream name the child without reading its agent each time.
        agent_slug: agent.slug,
        agent_name: agent.name,
        ...written.trace,
      },
    }),
    reservation?.claim,
  );
  const [{ created, relation }, run] = await settleInOrder([home.rows, inserting]);
  // The child's first message, and the creator's checkpoint it took, in one insert.
  const first = {
    threadId,
    runId,
    parts: [{ step: 0, messages: [{ role: 'user' as const, content: spec.message }] }],
  };
  // Once the run row is in, its ledger, its first message and its parent's updates are written together: one
  // round trip on PostgreSQL (docs/scale-out.md, "What scales how"). The parent's stream hears both changes,
  // `pending` then `running`, in one insert, after the checkpoint.
  // Given the parent and the child's agent, the updates need no read: these are the start's last statements,
  // and its COMMIT leaves with them (`commitBehind`).
  const writes = [
    ledger ? ledger.open(runId) : openRootBudget(tx, runId, agent.config.budget, spec.budget, new Date()),
    tx.messages.appendBatches(adopted ? [adopted.messages, first] : [first]),
    appendSubagentUpdate(
      tx,
      run.status === 'running' ? [pendingStateOf(run), run] : [run],
      { childAgent: agent, parent },
      adopted?.events.events,
    ),
  ] as const;
  tx.commitBehind(writes);
  const [opened, messages, updates] = await settleInOrder(writes);
  const context = firstAttemptContext(read, run, created, opened);
  const appended = messages.at(-1) ?? [];
  const held = adopted?.events.events.length ?? 0;
  return {
    run,
    relation,
    appended,
    context,
    announced: updates.slice(held),
    checkpointed: adopted ? updates.slice(0, held) : undefined,
  };
}

/** A run inserted claimed, as it would have been before its claim: what the parent's stream hears first. */
function pendingStateOf(run: Run): Run {
  return { ...run, status: 'pending', worker_id: null, lease_expires_at: null, attempt: 0, started_at: null };
}
