import type { Storage } from '../../core/ports/storage.js';

/** The tool span a remote expert's run records for its remote task (see `driveRemoteExpert`). */
export const REMOTE_TASK_TOOL = 'a2a_remote_task';

const PAGE = 200;

/** The remote task a run started, from its events: the first `a2a_remote_task` tool call. */
export async function findRemoteTask(
  storage: Storage,
  runId: string,
): Promise<{ taskId: string; contextId: string | undefined } | undefined> {
  for (let after = 0; ;) {
    const events = await storage.events.list(runId, after, PAGE);
    for (const event of events) {
      if (event.type !== 'tool_call' || event.payload.name !== REMOTE_TASK_TOOL) continue;
      const args = event.payload.args as { task_id?: unknown; context_id?: unknown } | undefined;
      if (typeof args?.task_id !== 'string') continue;
      return {
        taskId: args.task_id,
        contextId: typeof args.context_id === 'string' ? args.context_id : undefined,
      };
    }
    if (events.length < PAGE) return undefined;
    after = events.at(-1)?.seq ?? after;
  }
}
