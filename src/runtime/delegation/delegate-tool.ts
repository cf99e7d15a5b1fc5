import { z } from 'zod';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { DelegatableExpert } from '../../core/ports/storage.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { RunLimits } from '../../run-limits.js';
import { defineTool, type AnyTroupeTool, waitOutsideSlot } from '../../core/tools/troupe-tool.js';
import { refusalError } from '../runs/start/child-run-refusal.js';
import type { CreatorKnown } from '../runs/start/child-run-spec.js';
import type { DelegationRunService } from './delegation-run-service.js';
import { rosterListing } from './delegation-prompt.js';
import { formatDelegationResult } from './format-delegation-result.js';
import { childBudgetSchema } from '../budgets/budget-schema.js';
import { verifyChildResult, type VerifyDeps } from '../verification/verify-child-result.js';
import { verificationFooter } from '../../core/verification/verification.js';
import { acceptanceInput } from '../verification/acceptance-input.js';

export interface DelegateToolDeps {
  service: DelegationRunService;
  limits: RunLimits;
  /** The user of the run: the expert runs as them. */
  actor: Actor;
  /** The roster the model was shown; the call is checked again regardless. */
  roster: readonly DelegatableExpert[];
  /** What the delegating run's attempt loaded, so starts do not read it again. */
  creator?: CreatorKnown;
  verify: VerifyDeps;
}

/**
 * What the model passed as `expert`, as an identifier: a slug (`analyst`, also written `@analyst`) or an id,
 * matched exactly by the delegation service. Display names are never resolved, nor is the case folded: names
 * are not unique, so a look-alike expert of another user must not be reachable by writing a name (docs/delegation.md).
 * Anything that is not exactly a slug or id of an expert the user may delegate to is "not found".
 */
export function resolveExpertRef(raw: string): string {
  return raw.trim().replace(/^@/, '');
}

// Module-level: converted to JSON Schema once, not once per run that mounts the tool.
const delegateInput = z.object({
  expert: z
    .string()
    .min(1)
    .describe('The slug of the expert to delegate to, exactly as it leads its line in the list.'),
  task: z.string().min(1).describe('The whole brief for the expert: goal, context and expected output.'),
  budget: childBudgetSchema,
  acceptance: acceptanceInput,
});

/** `delegate(expert, task)`: runs another expert as the same user and returns its final text. */
export function createDelegateTool(deps: DelegateToolDeps): AnyTroupeTool {
  const { service, limits, actor, roster, verify } = deps;
  return defineTool({
    name: 'delegate',
    effect: 'idempotent',
    description: [
      'Delegate a task to another expert and wait for its final answer. The expert works for the same user in',
      'its own conversation and cannot see this one: put the goal, the needed context and the expected output in',
      '`task`. Failures (not delegatable, not found or access denied, depth limit, cycle) come back as errors.',
      '',
      'Available experts:',
      '',
      rosterListing(roster),
    ].join('\n'),
    inputSchema: delegateInput,
    adoptsCheckpoint: true,
    execute: (input, context) =>
      service.startWatched(
        {
          actor,
          expert: resolveExpertRef(input.expert),
          task: input.task,
          parent: context.run,
          toolCallId: context.toolCallId,
          channel: 'internal',
          budget: input.budget,
          acceptance: input.acceptance,
          creator: deps.creator,
          awaited: true,
          adoptCheckpoint: context.adoptCheckpoint,
        },
        async (started, since) => {
          if (started.kind === 'refused') throw refusalError(started.error, started.refusal);
          const { run, wait_timed_out } = await waitOutsideSlot(context, () =>
            service.awaitRun(started.run.id, limits.waitTimeoutMs, context.abortSignal, since),
          );
          if (wait_timed_out || !isTerminalStatus(run.status))
            return DELEGATION_TEXTS.stillRunning(run.status, run.id);
          const base = deps.creator?.agent ?? (await verify.storage.agents.get(context.run.agent_id));
          if (!base) throw refusalError(DELEGATION_TEXTS.notFound);
          const verified = await waitOutsideSlot(context, () =>
            verifyChildResult(verify, {
              parent: context.run,
              userId: context.run.user_id,
              base,
              toolCallId: context.toolCallId,
              child: run,
              timeoutMs: limits.waitTimeoutMs,
              signal: context.abortSignal,
              revise: (message, revision) =>
                service.startWatched(
                  {
                    actor,
                    expert: run.agent_id,
                    task: message,
                    parent: context.run,
                    toolCallId: `${context.toolCallId}:revision:${revision}`,
                    channel: 'internal',
                    acceptance: input.acceptance,
                    revises: { run, task: input.task },
                    creator: deps.creator,
                    awaited: true,
                  },
                  async (started, since) => {
                    if (started.kind === 'refused') return started.error;
                    const awaited = await service.awaitRun(
                      started.run.id,
                      limits.waitTimeoutMs,
                      context.abortSignal,
                      since,
                    );
                    return awaited.run;
                  },
                ),
            }),
          );
          const result = await formatDelegationResult(verified.run, context.workdir, {
            maxBytes: limits.childResultCapBytes,
            maxTokens: limits.toolResultMaxTokens,
          });
          const text = result.text + verificationFooter(verified.verification);
          if (result.isError) throw refusalError(text);
          return text;
        },
      ),
  });
}
