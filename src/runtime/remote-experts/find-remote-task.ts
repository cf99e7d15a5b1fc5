import { z } from 'zod';
import type { Storage } from '../../core/ports/storage.js';
import { REMOTE_TASK_TOOL } from '../../core/verification/remote-evidence.js';

const PAGE = 200;

/** The call's arguments as `driveRemoteExpert` records them; other keys are not read. */
const remoteTaskArgs = z.object({ task_id: z.string().min(1), context_id: z.string().nullish() });

/** The remote task a run started, from its events: the first `a2a_remote_task` tool call. */
export async function findRemoteTask(
  storage: Storage,
  runId: string,
): Promise<{ taskId: string; contextId: string | undefined } | undefined> {
  for (let after = 0; ;) {
    const events = await storage.events.list(runId, after, PAGE);
    for (const event of events) {
      if (event.type !== 'tool_call' || event.payload.name !== REMOTE_TASK_TOOL) continue;
      const args = remoteTaskArgs.safeParse(event.payload.args);
      if (!args.success) continue;
      return { taskId: args.data.task_id, contextId: args.data.context_id ?? undefined };
    }
    if (events.length < PAGE) return undefined;
    after = events.at(-1)?.seq ?? after;
  }
}
