import { runCapabilities } from '../../../core/runs/run-capabilities.js';
import type { ChatMessage } from '../../../core/thread/chat-message.js';
import type { ResolvedModel } from '../../../core/ports/model-provider.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import { repairToolCallPairs } from '../../../core/thread/tool-call-pairs.js';
import { promptView } from '../../../core/thread/compaction-summary.js';
import { runAgentLoop, type AgentLoopOutcome } from '../../agent-loop/agent-loop.js';
import { executeTool } from '../../agent-loop/execute-tool.js';
import type {
  AgentMiddleware,
  ModelCallRequest,
  ModelCallResult,
} from '../../../core/ports/agent-middleware.js';
import { composeMiddleware } from '../../middleware/compose-middleware.js';
import { abortErrorOf } from '../../../core/runs/run-abort.js';
import type { AppendBatch, CommitAttempt, PendingEvent, RunEmitter } from '../../events/run-emitter.js';
import type { EndedRun } from '../end/run-finalizer.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import type { ModelCallUsage } from '../../../core/runs/run-usage.js';
import type { RunUsageMeter } from '../../usage/run-usage-meter.js';
import { finalAnswerOf, unansweredToolCalls } from './resume-point.js';

export interface ResumeAgentLoopOptions {
  storage: Storage;
  run: Run;
  agent: Agent;
  model: ResolvedModel;
  tools: AnyTroupeTool[];
  emitter: RunEmitter;
  /** The ordered middleware list (`runMiddlewareStack`). */
  middleware: AgentMiddleware[];
  /** The run's usage: what earlier attempts settled is read from the thread this reads anyway. */
  meter: RunUsageMeter;
  /** The innermost model call, under every middleware: the run's model gateway (`ModelGateway.forRun`). */
  callModel: (request: ModelCallRequest) => Promise<ModelCallResult>;
  workdir: string;
  signal: AbortSignal;
  maxSteps: number;
  /** Lets tools wait on other runs without holding the executor slot or the inactivity clock. */
  suspend: <T>(work: () => Promise<T>) => Promise<T>;
  /** The run's thread when its creator handed it over (`RunHandoffs`); read from storage otherwise. */
  thread?: ThreadMessage[];
  /**
   * Ends the run as completed inside the transaction that checkpoints its final answer (`endRunIn`): one
   * commit for both, and one insert for the step's events and the `end` (`append`, which `finish` calls
   * once the status moved). Undefined when the run's status moved; the checkpoint then commits alone and
   * the caller ends the run as it would otherwise.
   */
  finish?: (
    tx: Storage,
    append: AppendBatch,
    output: string,
    attempt: CommitAttempt,
  ) => Promise<EndedRun | undefined>;
  /**
   * Nobody can have steered the run before its first step, so that step skips the inbox: a child its
   * creator's worker started at once for a call that waits for it (LocalRunStarts), whose id only that call
   * knows until it returns, and the only tool that steers (`subagent_steer`) needs the id.
   */
  unsteered?: boolean;
}

/**
 * Runs the agent loop from where the run's thread says it is (docs/runs.md resume): after its last checkpointed
 * step, re-running only the tool calls that have no result yet; a run that checkpointed its final answer
 * and died before recording it is complete, not re-asked.
 */
export async function resumeAgentLoop(options: ResumeAgentLoopOptions): Promise<AgentLoopOutcome> {
  const { storage, run, emitter, middleware, signal, finish } = options;
  const registry = new Map<string, AnyTroupeTool>();
  for (const tool of [...options.tools, ...middleware.flatMap((layer) => layer.tools ?? [])])
    registry.set(tool.name, tool);
  // An external call's `started` mark commits before it runs, after everything the run committed so far
  // (its model's turn first): docs/effects-and-forks.md#the-journal.
  const startExternal = async (toolCallId: string): Promise<void> => {
    await emitter.commit([], async (tx) => {
      await tx.toolCalls.markStarted(run.id, toolCallId);
    });
  };
  const chain = composeMiddleware(middleware, {
    callModel: options.callModel,
    callTool: (request) => executeTool(request, startExternal),
  });
  const { steerable } = runCapabilities(run);
  const thread = options.thread ?? (await storage.messages.list(run.thread_id));
  options.meter.resumeFrom(thread, run.id);
  // The run's own checkpoints are in the thread already; the highest step is where to continue from.
  const lastStep = thread.reduce(
    (highest, entry) => (entry.run_id === run.id ? Math.max(highest, entry.step) : highest),
    0,
  );
  const unanswered = unansweredToolCalls(thread, run.id);
  // Only a resume has calls without a result, and only then is the journal read.
  const pending = unanswered && {
    ...unanswered,
    started: await storage.toolCalls.startedAmong(
      run.id,
      unanswered.calls.map((call) => call.toolCallId),
    ),
  };
  // Threads stored before runs closed their calls on ending may hold calls without results; providers
  // refuse such prompts, so they are answered here (in memory) — except the calls this run will execute.
  // A compacted thread is prompted from its latest summary on (docs/model-calls.md#compaction).
  const messages: ChatMessage[] = repairToolCallPairs(
    promptView(thread.map((entry) => entry.message)),
    new Set(pending?.calls.map((call) => call.toolCallId)),
  );
  const answered = finalAnswerOf(thread, run.id);
  if (answered !== undefined) return { kind: 'completed', output: answered };
  return runAgentLoop({
    run,
    agent: options.agent,
    model: options.model,
    system: options.agent.config.system_prompt ?? '',
    messages,
    tools: registry,
    chain,
    emitter,
    abortSignal: signal,
    workdir: options.workdir,
    suspend: options.suspend,
    firstStep: lastStep + 1,
    pending,
    maxSteps: options.maxSteps,
    checkpoint: async (step, stepMessages, events = [], usage) => {
      await emitter.commit(events, undefined, { step, messages: stepMessages, usage });
    },
    hold: (step, stepMessages, events, usage) =>
      emitter.hold(events, { step, messages: stepMessages, usage }),
    ...(finish
      ? {
          finish: async (
            step: number,
            stepMessages: ChatMessage[],
            events: PendingEvent[],
            output: string,
            usage: ModelCallUsage,
          ) => {
            let ended: Run | undefined;
            await emitter.commit(
              events,
              async (tx, append, attempt) => {
                const result = await finish(tx, append, output, attempt);
                ended = result?.run;
                return result?.events;
              },
              { step, messages: stepMessages, usage },
            );
            return ended;
          },
        }
      : {}),
    beforeStep: async (step) => {
      // The lease's heartbeat and the cancel signal end the run through its abort signal: no re-read here.
      const ended = abortErrorOf(signal);
      if (ended !== undefined) throw ended;
      // Steering messages queued by the parent are read between steps, in the order they were sent.
      if (!steerable || (options.unsteered === true && step === lastStep + 1)) return [];
      const steering = await storage.inbox.take(run.id);
      return steering.map((text): ChatMessage => ({ role: 'user', content: text }));
    },
  });
}
