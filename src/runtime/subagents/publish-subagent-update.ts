import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import { isTerminalStatus, type Run } from '../../core/records/run.js';
import { appendAndPublish, lineageOf } from '../run-emitter.js';
import { inlineSubagentName } from './inline-subagent-agent.js';

const PREVIEW_CHARS = 500;

/**
 * Pushes a child's status change onto its PARENT's stream (`subagent_update`), so a console watching the
 * parent sees children start, progress and end without polling — Yuxi's panel went stale here (§9.3).
 * A parent that already ended gets nothing: its stream is closed after `end`.
 */
export async function publishSubagentUpdate(
  storage: Storage,
  bus: EventBus,
  child: Run,
  /** The child's agent when the caller has it at hand (a start), saving its read. */
  childAgent?: Pick<Agent, 'slug' | 'name'>,
): Promise<void> {
  if (!child.created_by_run_id) return;
  try {
    const [parent, agent] = await Promise.all([
      storage.runs.get(child.created_by_run_id),
      childAgent ?? storage.agents.get(child.agent_id),
    ]);
    if (!parent || isTerminalStatus(parent.status)) return;
    await appendAndPublish(storage, bus, parent.id, 'subagent_update', {
      ...lineageOf(parent),
      run_id: child.id,
      kind: child.run_type === 'delegation' ? 'delegation' : 'subagent',
      slug: inlineSubagentName(child) ?? agent?.slug ?? null,
      name: inlineSubagentName(child) ?? agent?.name ?? null,
      status: child.status,
      child_thread_id: child.thread_id,
      child_conversation_id: child.conversation_id,
      parent_tool_call_id: child.input.parent_tool_call_id ?? null,
      description: child.input.message.slice(0, PREVIEW_CHARS),
      error: child.error,
      output: child.output === null ? null : child.output.slice(0, PREVIEW_CHARS),
    });
  } catch {
    // Best effort: the parent learns the outcome from its tool results and the status panel endpoint anyway.
  }
}
