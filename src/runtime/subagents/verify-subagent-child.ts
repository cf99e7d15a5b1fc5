import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { ToolContext } from '../../core/tools/troupe-tool.js';
import { unverified, type Verification } from '../../core/verification/verification.js';
import { startWatched } from '../runs/start/start-watched.js';
import { awaitTerminal } from '../runs/wait/await-terminal.js';
import { readEvidence } from '../verification/read-evidence.js';
import { verifyChildResult, type VerifyDeps } from '../verification/verify-child-result.js';
import type { SubagentRunService } from './subagent-run-service.js';

export interface VerifySubagentDeps {
  verify: VerifyDeps;
  service: SubagentRunService;
  waitTimeoutMs: number;
  /** The parent's agent, whose `config.grader` applies. */
  base: Agent | undefined;
}

/**
 * A finished subagent child's evidence and verdict (docs/verified-delegation.md): a revision is a new run on the
 * child's thread, as a `task` with its `thread_id` would start, with the grader's reasons as its message.
 */
export async function verifySubagentChild(
  deps: VerifySubagentDeps,
  context: ToolContext,
  child: Run,
  subagent: { agent: Agent; inline: boolean },
): Promise<{ run: Run; verification: Verification }> {
  const base = deps.base ?? (await deps.verify.storage.agents.get(context.run.agent_id));
  if (!base) return { run: child, verification: unverified(await readEvidence(deps.verify.storage, child)) };
  return verifyChildResult(deps.verify, {
    parent: context.run,
    userId: context.run.user_id,
    base,
    toolCallId: context.toolCallId,
    child,
    timeoutMs: deps.waitTimeoutMs,
    signal: context.abortSignal,
    revise: (message, revision) =>
      startWatched(
        deps.verify.bus,
        (runId) =>
          deps.service.start({
            creatorRunId: context.run.id,
            creatorThreadId: context.run.thread_id,
            userId: context.run.user_id,
            subagent: subagent.agent,
            ...(subagent.inline ? { inlineSubagent: subagent.agent.slug } : {}),
            description: message,
            threadId: child.thread_id,
            toolCallId: `${context.toolCallId}:revision:${revision}`,
            acceptance: typeof child.input.acceptance === 'string' ? child.input.acceptance : undefined,
            task: typeof child.input.task === 'string' ? child.input.task : child.input.message,
            runId,
            awaited: true,
          }),
        async (outcome, since) => {
          if (outcome.kind === 'refused') return outcome.error;
          if (outcome.kind === 'busy') return 'the subagent thread is busy';
          const awaited = await awaitTerminal(
            deps.verify.storage,
            deps.verify.bus,
            outcome.run.id,
            deps.waitTimeoutMs,
            context.abortSignal,
            { since },
          );
          return awaited.run;
        },
      ),
  });
}
