import { promptViewOf } from '../../../core/thread/compaction-summary.js';
import type { ChatMessage } from '../../../core/thread/chat-message.js';

import { TroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import type { InspectedStep, InspectedToolCall } from '../../../core/records/inspected-step.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { Actor } from '../../../core/records/user.js';
import { visibleRun } from '../../../core/runs/visible-run.js';
import { resolveRunAgent } from '../../agents/resolve-run-agent.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';

export type { InspectedStep, InspectedToolCall };

const RECONSTRUCTED =
  'Messages are the stored thread before this call. The system prompt and tools are the agent’s as configured ' +
  'now, without what the runtime adds at call time (the subagent and delegation rosters, skills, knowledge, ' +
  'and tools of MCP servers and middleware).';

function isPartial(message: ChatMessage): boolean {
  const options = (message as { providerOptions?: { troupe?: { partial?: unknown } } }).providerOptions;
  return options?.troupe?.partial === true;
}

function toolCallsOf(turn: ThreadMessage | undefined, thread: readonly ThreadMessage[]): InspectedToolCall[] {
  if (!turn || typeof turn.message.content === 'string' || turn.message.role !== 'assistant') return [];
  const results = new Map<string, { output: unknown; is_error: boolean }>();
  for (const entry of thread) {
    if (entry.seq <= turn.seq || entry.run_id !== turn.run_id || entry.message.role !== 'tool') continue;
    for (const part of entry.message.content) {
      if (part.type !== 'tool-result' || results.has(part.toolCallId)) continue;
      const output = part.output as { type: string; value?: unknown };
      results.set(part.toolCallId, { output: output.value, is_error: output.type.startsWith('error') });
    }
  }
  return turn.message.content.flatMap((part) =>
    part.type === 'tool-call'
      ? [
          {
            tool_call_id: part.toolCallId,
            name: part.toolName,
            args: part.input,
            result: results.get(part.toolCallId) ?? null,
          },
        ]
      : [],
  );
}

/**
 * Step `step` of a run the actor may see (anyone else's is `run_not_found`): its model call's prompt,
 * completion, usage and tool calls. A step the run has not reached is `step_not_found`; the step after its
 * last stored one is, unless it completed, its call in progress (or one that never answered): the prompt so
 * far, no completion.
 */
export async function inspectRunStep(
  deps: { storage: Storage; catalogue: readonly AnyTroupeTool[] },
  actor: Actor,
  runId: string,
  step: number,
): Promise<InspectedStep> {
  const { storage } = deps;
  const run: Run = visibleRun(actor, runId, await storage.runs.get(runId));
  const thread = await storage.messages.list(run.thread_id);
  const own = thread.filter((entry) => entry.run_id === run.id);
  const lastStep = own.reduce((highest, entry) => Math.max(highest, entry.step), 0);
  const turn = own.find((entry) => entry.step === step && entry.message.role === 'assistant');
  // Only an active run, or one that stopped early, can have a call without a turn after its last step.
  const open = run.status !== 'completed' && step === lastStep + 1;
  if (step < 1 || (turn === undefined && !open)) {
    throw new TroupeError('step_not_found', `Run ${runId} has no model call at step ${step}`);
  }
  // Before the turn; without one, everything up to the run's last message (later runs' messages are not it).
  const until = turn?.seq ?? own.reduce((highest, entry) => Math.max(highest, entry.seq + 1), 0);
  // What the call read: a compacted thread is prompted from its latest summary on (docs/model-calls.md#compaction).
  const before = promptViewOf(
    thread.filter((entry) => entry.seq < until),
    (entry) => entry.message,
  );
  const stored = await storage.agents.get(run.agent_id);
  let systemPrompt: string | null = null;
  let tools: string[] = [];
  if (stored) {
    const resolved = await resolveRunAgent(run, stored, { catalogue: deps.catalogue }).catch(() => undefined);
    systemPrompt = resolved?.agent.config.system_prompt ?? null;
    tools = (resolved?.tools ?? []).map((tool) => tool.name);
  }
  const calledAt = turn?.created_at ?? new Date().toISOString();
  return {
    run_id: run.id,
    step,
    prompt: {
      messages: before,
      system_prompt: systemPrompt,
      tools,
      agent_changed_since: stored === undefined || stored.updated_at > calledAt,
      note: RECONSTRUCTED,
    },
    completion: turn ?? null,
    partial: turn !== undefined && isPartial(turn.message),
    usage: turn?.usage ?? null,
    tool_calls: toolCallsOf(turn, thread),
  };
}
