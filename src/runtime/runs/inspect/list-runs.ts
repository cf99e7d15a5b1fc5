import type { RunListEntry, RunListFilter, Storage } from '../../../core/ports/storage.js';
import type { Verdict } from '../../../core/verification/verification.js';
import type { Run, RunStatus, RunType } from '../../../core/records/run.js';
import type { RunListItem, RunListPage } from '../../../core/records/run-list.js';
import { isAdmin, type Actor } from '../../../core/records/user.js';
import { getReadableConversation } from '../../conversations/readable-conversation.js';
import { inlineSubagentName } from '../../../core/subagents/inline-subagent-agent.js';
import { decodeRunListCursor, encodeRunListCursor } from './run-list-cursor.js';
import type { RunViews } from './run-views.js';

export type { RunListItem, RunListPage };

export const MAX_RUN_LIST_LIMIT = 100;
const PREVIEW_CHARS = 200;

export interface RunListQuery {
  status?: RunStatus[];
  /** Agent id or slug. */
  agent?: string;
  kind?: RunType[];
  /** Child runs judged with one of these verdicts. */
  verdict?: Verdict[];
  conversation_id?: string;
  /** ISO instants: created_at in [from, to). */
  from?: string;
  to?: string;
  /** Substring of the input message. */
  q?: string;
  /** true: only runs forks started; false: only the others. */
  forked?: boolean;
  /** Admins only; for anyone else a user id other than their own matches nothing. */
  user_id?: string;
  cursor?: string;
  limit: number;
}

export function previewOf(message: string, max = PREVIEW_CHARS): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

function durationMs(run: Run): number | null {
  if (run.started_at === null || run.finished_at === null) return null;
  return Math.max(0, Date.parse(run.finished_at) - Date.parse(run.started_at));
}

function toItem(entry: RunListEntry, views: RunViews): RunListItem {
  const { run } = entry;
  return {
    id: run.id,
    status: run.status,
    run_type: run.run_type,
    agent: { id: run.agent_id, slug: entry.agent?.slug ?? null, name: entry.agent?.name ?? null },
    subagent_name: inlineSubagentName(run) ?? null,
    user_id: run.user_id,
    conversation_id: run.conversation_id,
    thread_id: run.thread_id,
    root_run_id: run.root_run_id,
    created_by_run_id: run.created_by_run_id,
    depth: run.depth,
    model_spec: run.model_spec,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    updated_at: run.updated_at,
    duration_ms: durationMs(run),
    usage: run.usage,
    worker_lost: views.workerLost(run),
    child_count: entry.child_count,
    input_preview: previewOf(run.input.message),
    error: run.error,
    forked_from: run.forked_from,
  };
}

/**
 * The runs explorer: the actor's runs (an admin's: everyone's, or one user's), newest first, one keyset page
 * at a time. A conversation filter the actor cannot read is `conversation_not_found`, like every other
 * route; an agent that does not exist simply matches nothing.
 */
export async function listRuns(
  storage: Storage,
  views: RunViews,
  actor: Actor,
  query: RunListQuery,
): Promise<RunListPage> {
  const admin = isAdmin(actor);
  if (!admin && query.user_id !== undefined && query.user_id !== actor.id)
    return { runs: [], next_cursor: null };
  const limit = Math.min(Math.max(1, query.limit), MAX_RUN_LIST_LIMIT);
  const filter: RunListFilter = { limit: limit + 1 };
  const userId = admin ? query.user_id : actor.id;
  if (userId !== undefined) filter.user_id = userId;
  if (query.status !== undefined) filter.statuses = query.status;
  if (query.kind !== undefined) filter.run_types = query.kind;
  if (query.verdict !== undefined) filter.verdicts = query.verdict;
  if (query.from !== undefined) filter.created_from = query.from;
  if (query.to !== undefined) filter.created_to = query.to;
  if (query.q !== undefined && query.q.trim() !== '') filter.search = query.q.trim();
  if (query.forked !== undefined) filter.forked = query.forked;
  if (query.cursor !== undefined) filter.before = decodeRunListCursor(query.cursor);
  if (query.conversation_id !== undefined) {
    filter.conversation_id = (await getReadableConversation(storage, actor, query.conversation_id)).id;
  }
  if (query.agent !== undefined) {
    const byId = await storage.agents.get(query.agent);
    filter.agent_id = byId?.id ?? (await storage.agents.getBySlug(query.agent))?.id ?? query.agent;
  }
  const rows = await storage.runs.listPage(filter);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const live = await views.withLiveUsage(page.map((entry) => entry.run));
  return {
    runs: page.map((entry, index) => toItem({ ...entry, run: live[index] ?? entry.run }, views)),
    next_cursor:
      rows.length > limit && last !== undefined
        ? encodeRunListCursor({ created_at: last.run.created_at, id: last.run.id })
        : null,
  };
}
