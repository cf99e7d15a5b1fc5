import type { Run } from '../../core/records/run.js';
import type { RunEventLineage } from '../../core/records/run-event-payloads.js';

/** Fields every event of a run carries, so a parent's stream can attribute a child's events. */
export function lineageOf(
  run: Pick<Run, 'root_run_id' | 'created_by_run_id' | 'depth'> & {
    input: Pick<Run['input'], 'parent_tool_call_id'>;
  },
): RunEventLineage {
  return {
    root_run_id: run.root_run_id,
    parent_run_id: run.created_by_run_id,
    parent_tool_call_id: run.input.parent_tool_call_id ?? null,
    depth: run.depth,
  };
}
