import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunEventBatch, Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { RunEvent, SubagentUpdatePayload } from '../../../core/records/run-event.js';
import { lineageOf } from '../../events/lineage-of.js';
import { publishAllQuietly } from '../../events/publish-quietly.js';
import type { RunEventLineage } from '../../../core/records/run-event-payloads.js';
import { childCard } from './child-card.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';

const PREVIEW_CHARS = 500;

/** The child's agent as its start recorded it in the run's input, saving a read on every status change. */
function namedInInput(child: Run): Pick<Agent, 'slug' | 'name'> | undefined {
  const { agent_slug: slug, agent_name: name } = child.input;
  return typeof slug === 'string' && typeof name === 'string' ? { slug, name } : undefined;
}

/**
 * The lineage fields of the parent's events. A child one hop below its root has the root as parent, whose
 * lineage its own row already says (a root has no creator, no parent tool call, depth 0): no read.
 */
async function lineageOfParent(
  storage: Storage,
  child: Run,
  parentId: string,
  parent: Run | undefined,
): Promise<RunEventLineage | undefined> {
  if (parent) return lineageOf(parent);
  if (child.depth === 1 && parentId === child.root_run_id) {
    return lineageOf({ root_run_id: parentId, created_by_run_id: null, depth: 0, input: {} });
  }
  const read = await storage.runs.get(parentId);
  return read && lineageOf(read);
}

/**
 * A child's status change as an event of its PARENT's stream (`subagent_update`), so a console watching the
 * parent sees children start, progress and end without polling — Yuxi's panel went stale here (§9.3).
 * Guarded: a parent that already ended gets nothing, its stream is closed after `end`, checked in the insert
 * itself, with no window in which the parent could end between a status check and the append. The caller
 * appends it, alone or in the same statement as the child's own events (`events.appendBatches`).
 */
export async function subagentUpdateBatch(
  storage: Storage,
  child: Run,
  /** What the caller has at hand (a start has both), saving their reads. */
  known: { childAgent?: Pick<Agent, 'slug' | 'name'>; parent?: Run } = {},
): Promise<RunEventBatch | undefined> {
  const parentId = child.created_by_run_id;
  if (!parentId) return undefined;
  const inline = inlineSubagentName(child);
  const named = known.childAgent ?? namedInInput(child);
  const [parentLineage, agent] = await Promise.all([
    lineageOfParent(storage, child, parentId, known.parent),
    inline !== undefined || named ? named : storage.agents.get(child.agent_id),
  ]);
  if (!parentLineage) return undefined;
  // The card's own parent_tool_call_id (the call that started the child) replaces the parent's lineage one.
  // Object.assign, not spreads: see the emitter's `ownBatch`.
  const payload: SubagentUpdatePayload = Object.assign({}, parentLineage, childCard(child, agent), {
    description: child.input.message.slice(0, PREVIEW_CHARS),
    error: child.error,
    output: child.output === null ? null : child.output.slice(0, PREVIEW_CHARS),
  });
  return { run_id: parentId, events: [{ type: 'subagent_update', payload }], whileActive: true };
}

/**
 * subagentUpdateBatch appended on its own, one event per state of the child in `states` (a start that also
 * claimed its child reports `pending`, then `running`), in one statement. Given a transaction, the updates
 * commit with the status changes they report (the caller publishes the returned events after the commit).
 */
export async function appendSubagentUpdate(
  storage: Storage,
  states: readonly Run[],
  known: { childAgent?: Pick<Agent, 'slug' | 'name'>; parent?: Run } = {},
  /** The parent's own events to lead the insert (a checkpoint its start adopted), returned first. */
  lead: RunEventBatch['events'] = [],
): Promise<RunEvent[]> {
  const batches = await Promise.all(states.map((state) => subagentUpdateBatch(storage, state, known)));
  const [first] = batches;
  if (!first) return [];
  const events = [...lead, ...batches.flatMap((batch) => batch?.events ?? [])];
  const [appended = []] = await storage.events.appendBatches([{ ...first, events }]);
  return appended;
}

/** appendSubagentUpdate on its own, then published: best effort, for changes that have no transaction. */
export async function publishSubagentUpdate(
  storage: Storage,
  bus: EventBus,
  child: Run,
  known: { childAgent?: Pick<Agent, 'slug' | 'name'>; parent?: Run } = {},
): Promise<void> {
  try {
    await publishAllQuietly(bus, await appendSubagentUpdate(storage, [child], known));
  } catch {
    // Best effort: the parent learns the outcome from its tool results and the status panel endpoint anyway.
  }
}
