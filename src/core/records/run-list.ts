import type { ForkOrigin, RunError, RunStatus, RunType, TokenUsage, WorkerLost } from './run.js';

/** One row of `GET /api/agent/runs` (the console's runs explorer). */
export interface RunListItem {
  id: string;
  status: RunStatus;
  run_type: RunType;
  agent: { id: string; slug: string | null; name: string | null };
  /** The inline spec an inline subagent run plays (it runs as its parent agent). */
  subagent_name: string | null;
  user_id: string;
  conversation_id: string;
  thread_id: string;
  root_run_id: string;
  created_by_run_id: string | null;
  depth: number;
  model_spec: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** From start to finish; null until the run has both. */
  duration_ms: number | null;
  /** Live while it runs (docs/usage.md); null until it first started. */
  usage: TokenUsage | null;
  /** Set while an expired lease holds it. */
  worker_lost: WorkerLost | null;
  child_count: number;
  /** The input message on one line, cut at a word boundary. */
  input_preview: string;
  error: RunError | null;
  /** Set on a run a fork started (docs/effects-and-forks.md#fork). */
  forked_from: ForkOrigin | null;
}

export interface RunListPage {
  runs: RunListItem[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}
