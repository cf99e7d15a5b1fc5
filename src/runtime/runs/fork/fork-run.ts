import { canManageAgent, canUseAgent, grantDecides } from '../../../core/agent-access-policy.js';
import { TroupeError } from '../../../core/errors.js';
import { newId, newRunId } from '../../../core/ids.js';
import type { ModelProvider } from '../../../core/ports/model-provider.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Conversation } from '../../../core/records/conversation.js';
import type { Run, RunInput, RunView } from '../../../core/records/run.js';
import type { Actor } from '../../../core/records/user.js';
import type { StoredAgentOverrides } from '../../../core/runs/agent-overrides.js';
import { buildNewRun } from '../../../core/runs/build-new-run.js';
import { planForkThread, type ForkedMessage } from '../../../core/runs/fork-thread.js';
import { openRootBudget } from '../../budgets/open-run-budget.js';
import type { RunViews } from '../inspect/run-views.js';

export interface ForkRequest {
  /** The source's last step the fork keeps; default: the whole run with an `input`, 0 without. */
  after_step?: number | undefined;
  /** The fork's message; without it the fork re-runs the source's input from `after_step`. */
  input?: string | undefined;
  agent_overrides?: { model?: string; system_prompt?: string; tools?: string[] } | undefined;
}

export interface ForkResult {
  run: RunView;
  conversation: Conversation;
}

export interface ForkRunDeps {
  storage: Storage;
  queue: RunQueue;
  views: RunViews;
  models: ModelProvider;
}

const MAX_TITLE = 500;
/** What a child run's input says about the agent it plays; a fork of it plays the same one. */
const CARRIED_INPUT = [
  'inline_subagent',
  'subagent_slug',
  'agent_slug',
  'agent_name',
  'expert_slug',
] as const;

/** Consecutive messages of one run, appended as one write each, in thread order. */
function byRun(messages: readonly ForkedMessage[]): { runId: string | null; messages: ForkedMessage[] }[] {
  const groups: { runId: string | null; messages: ForkedMessage[] }[] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (last?.runId === message.run_id) last.messages.push(message);
    else groups.push({ runId: message.run_id, messages: [message] });
  }
  return groups;
}

function forkInput(source: Run, input: string | undefined, overrides: StoredAgentOverrides): RunInput {
  const carried = Object.fromEntries(
    CARRIED_INPUT.flatMap((key) => (source.input[key] === undefined ? [] : [[key, source.input[key]]])),
  );
  const attachments = input === undefined ? source.input.attachments : undefined;
  return {
    message: input ?? source.input.message,
    ...carried,
    ...(attachments === undefined ? {} : { attachments }),
    ...(Object.keys(overrides).length > 0 ? { agent_overrides: overrides } : {}),
  };
}

/**
 * `POST /api/agent/runs/{id}/fork` (docs/effects-and-forks.md#fork): a new conversation of the same user,
 * agent and project whose thread is the source's up to a step, and a run there, all in one transaction; the
 * source is only read. Only the source's own user forks: a fork starts a run in their name and workdir, which
 * an admin may read but not do for them (docs/records-and-access.md).
 */
export async function forkRun(
  deps: ForkRunDeps,
  actor: Actor,
  sourceId: string,
  request: ForkRequest,
): Promise<ForkResult> {
  const { storage } = deps;
  const input = request.input?.trim();
  if (input === '') throw new TroupeError('validation_failed', 'input must not be empty');
  const requested = request.agent_overrides ?? {};
  if (requested.model !== undefined) deps.models.resolve(requested.model);
  const created = await storage.transaction(async (tx) => {
    const source = await tx.runs.get(sourceId);
    if (source?.user_id !== actor.id) throw new TroupeError('run_not_found', `Run ${sourceId} not found`);
    const read = await tx.conversations.getWithParts(source.conversation_id);
    const agent = await tx.agents.get(source.agent_id);
    const hasGrant =
      agent !== undefined && grantDecides(actor, agent) && (await tx.access.has(actor.id, agent.id));
    if (!read || !agent || !canUseAgent(actor, agent, hasGrant)) {
      throw new TroupeError('agent_not_found', 'The agent of this run is no longer available');
    }
    // Changing what the agent is told or which model answers is editing the agent: its owner's or an
    // admin's call. Tools only ever narrow (withAgentOverrides), so anyone who may use the agent may.
    if (
      (requested.model !== undefined || requested.system_prompt !== undefined) &&
      !canManageAgent(actor, agent)
    ) {
      throw new TroupeError(
        'fork_override_forbidden',
        `Only the owner of agent ${agent.slug} (or an admin) may fork it with another model or system prompt; tools may only be narrowed`,
      );
    }
    const runId = newRunId();
    const plan = planForkThread(await tx.messages.list(source.thread_id), source.id, runId, {
      afterStep: request.after_step,
      hasInput: input !== undefined,
    });
    const origin = read.conversation;
    const forkedFrom = { run_id: source.id, step: plan.step };
    const conversation = await tx.conversations.create({
      user_id: actor.id,
      agent_id: origin.agent_id,
      thread_id: newId('thr'),
      project_id: origin.project_id,
      // A child run's fork is a child conversation too: it takes no messages, like the one it came from.
      status: source.run_type === 'chat' ? 'active' : origin.status,
      title: `Fork of ${origin.title}`.slice(0, MAX_TITLE),
      metadata: { forked_from: { ...forkedFrom, conversation_id: origin.id } },
    });
    const overrides: StoredAgentOverrides = {
      ...(requested.system_prompt !== undefined ? { system_prompt: requested.system_prompt } : {}),
      ...(requested.tools !== undefined ? { tools: requested.tools } : {}),
    };
    const run = await tx.runs.insert({
      ...buildNewRun({
        id: runId,
        run_type: source.run_type,
        channel: 'api',
        user_id: actor.id,
        // The source's model unless overridden: a fork replays the run as it was. A child's approval mode was
        // its root's decision, not its own agent's, so its fork keeps it.
        agent: {
          id: source.agent_id,
          config: {
            ...agent.config,
            model: requested.model ?? source.model_spec,
            tool_approval_mode:
              source.run_type === 'chat' ? agent.config.tool_approval_mode : source.tool_approval_mode,
          },
        },
        thread_id: conversation.thread_id,
        conversation_id: conversation.id,
        parent: undefined,
        fallback_model: source.model_spec,
        input: forkInput(source, input, overrides),
      }),
      forked_from: forkedFrom,
    });
    await openRootBudget(tx, runId, agent.config.budget, undefined, new Date());
    for (const group of byRun(plan.messages)) {
      await tx.messages.appendSteps(
        conversation.thread_id,
        group.runId,
        group.messages.map(({ step, message }) => ({ step, messages: [message] })),
      );
    }
    if (input !== undefined)
      await tx.messages.append(conversation.thread_id, runId, 0, [{ role: 'user', content: input }]);
    return { run, conversation };
  });
  await deps.queue.enqueue(created.run.id);
  return { run: await deps.views.view(created.run), conversation: created.conversation };
}
