import type { Storage } from '../../core/ports/storage.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunEndings } from '../runs/run-endings.js';
import type { Agent } from '../../core/records/agent.js';
import type { CreatorKnown } from '../runs/start/child-run-spec.js';
import { isTerminalStatus, type Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { runCapabilities } from '../../core/runs/run-capabilities.js';
import type { RunLimits } from '../../run-limits.js';
import { CANCELLED } from '../runs/cancel/request-cancel.js';
import { awaitTerminal } from '../runs/wait/await-terminal.js';
import { awaitRunsTerminal } from '../runs/wait/await-runs-terminal.js';
import { startWatched } from '../runs/start/start-watched.js';
import {
  defineTool,
  waitOutsideSlot,
  type AnyTroupeTool,
  type ToolContext,
  type ToolOutput,
} from '../../core/tools/troupe-tool.js';
import { formatChildResult } from './format-child-result.js';
import { readProgress } from '../runs/children/subagent-progress.js';
import { refusalError } from '../runs/start/child-run-refusal.js';
import type { SubagentRunService, SubagentStartOutcome } from './subagent-run-service.js';
import { awaitInput, runIdInput, startInput, steerInput } from './subagent-tool-inputs.js';
import { awaitPayload, busyPayload, eventsUrl, resultUrl, runResult } from './subagent-tool-payloads.js';
import type { BudgetLimits } from '../../core/budgets/budget.js';
import {
  unverified,
  verificationFooter,
  verificationPayload,
  type Verification,
} from '../../core/verification/verification.js';
import { readEvidence } from '../verification/read-evidence.js';
import type { VerifyDeps } from '../verification/verify-child-result.js';
import { verifySubagentChild } from './verify-subagent-child.js';

export interface SubagentToolDeps {
  storage: Storage;
  bus: EventBus;
  endings: RunEndings;
  limits: RunLimits;
  service: SubagentRunService;
  /** The subagents this run may call, in prompt order (built-ins, inline specs, registered). */
  allowed: readonly Agent[];
  /** Names in `allowed` that are built-in or inline: their child runs play the parent agent. */
  inline?: ReadonlySet<string>;
  /** What the calling run's attempt loaded (its agent's limits govern the starts), so starts do not re-read it. */
  creator?: CreatorKnown;
  verify: VerifyDeps;
}

export function createSubagentTools(deps: SubagentToolDeps): AnyTroupeTool[] {
  const { storage, bus, limits, service, allowed } = deps;
  const slugs = allowed.map((agent) => agent.slug);

  function pick(slug: string): Agent {
    const agent = allowed.find((candidate) => candidate.slug === slug);
    if (!agent) throw refusalError(SUBAGENT_TEXTS.unknownSlug(slug, slugs));
    return agent;
  }

  /** Started, replayed or busy; a refusal becomes the tool's error result. */
  async function start(
    context: ToolContext,
    input: {
      description: string;
      subagent_slug: string;
      thread_id?: string | null | undefined;
      budget?: BudgetLimits | undefined;
      acceptance?: string | undefined;
    },
    /** `task`: the id of the child it watches and waits for; none for a background start. */
    runId?: string,
  ): Promise<Exclude<SubagentStartOutcome, { kind: 'refused' }>> {
    const outcome = await service.start({
      creatorRunId: context.run.id,
      creatorThreadId: context.run.thread_id,
      userId: context.run.user_id,
      subagent: pick(input.subagent_slug),
      ...(deps.inline?.has(input.subagent_slug) ? { inlineSubagent: input.subagent_slug } : {}),
      description: input.description,
      threadId: input.thread_id ?? null,
      toolCallId: context.toolCallId,
      budget: input.budget,
      acceptance: input.acceptance,
      ...(deps.creator === undefined ? {} : { creator: deps.creator }),
      runId,
      awaited: runId !== undefined,
      adoptCheckpoint: context.adoptCheckpoint,
    });
    if (outcome.kind === 'refused') throw refusalError(outcome.error, outcome.refusal);
    return outcome;
  }

  /** A finished child with its evidence and verdict, graded and revised when it has criteria. */
  function verified(context: ToolContext, child: Run, slug: string) {
    const agent = allowed.find((candidate) => candidate.slug === slug);
    if (!agent) return verifyUnlisted(child);
    return verifySubagentChild(
      { verify: deps.verify, service, waitTimeoutMs: limits.waitTimeoutMs, base: deps.creator?.agent },
      context,
      child,
      { agent, inline: deps.inline?.has(slug) === true },
    );
  }

  /** A child whose subagent left the namespace: its evidence, never a grading it could not be revised after. */
  async function verifyUnlisted(child: Run) {
    return { run: child, verification: unverified(await readEvidence(storage, child)) };
  }

  async function owned(context: ToolContext, runId: string) {
    const child = await service.getOwnedChild(context.run.id, context.run.user_id, runId);
    if (!child) throw refusalError(SUBAGENT_TEXTS.notOwned);
    return child;
  }

  const task = defineTool({
    name: 'task',
    effect: 'idempotent',
    // The subagent list is in the system prompt only (docs/subagents.md#prompt-section): once per call, not
    // once per tool.
    description:
      "Run a subagent (one of the system prompt's available subagent slugs) on a self-contained task and wait " +
      'for its final result; its intermediate steps stay in its own thread. Put the whole brief in `description`.',
    inputSchema: startInput,
    adoptsCheckpoint: true,
    execute: (input, context) =>
      startWatched(
        bus,
        (runId) => start(context, input, runId),
        async (outcome, since) => {
          if (outcome.kind === 'busy') return busyPayload(outcome);
          const { run: awaited, wait_timed_out } = await waitOutsideSlot(context, () =>
            awaitTerminal(storage, bus, outcome.run.id, limits.waitTimeoutMs, context.abortSignal, { since }),
          );
          const prefix = SUBAGENT_TEXTS.threadPrefix(outcome.run.thread_id);
          if (wait_timed_out || !isTerminalStatus(awaited.status))
            return prefix + SUBAGENT_TEXTS.stillRunning(awaited.status, awaited.id);
          const checked = await waitOutsideSlot(context, () =>
            verified(context, awaited, input.subagent_slug),
          );
          const { text, isError } = await formatChildResult(checked.run, context.workdir, {
            maxBytes: limits.childResultCapBytes,
            maxTokens: limits.toolResultMaxTokens,
          });
          const footer = verificationFooter(checked.verification);
          if (isError) throw refusalError(prefix + text + footer);
          return prefix + text + footer;
        },
      ),
  });

  const subagentStart = defineTool({
    name: 'subagent_start',
    effect: 'idempotent',
    description:
      'Start a subagent in the background; returns at once with its `run_id` (for the other subagent_* tools) ' +
      'and `thread_id`. A thread with a run in progress answers `busy`.',
    inputSchema: startInput,
    adoptsCheckpoint: true,
    async execute(input, context) {
      const outcome = await start(context, input);
      if (outcome.kind === 'busy') return busyPayload(outcome);
      const agent = pick(input.subagent_slug);
      return {
        status: outcome.kind,
        run_id: outcome.run.id,
        thread_id: outcome.run.thread_id,
        subagent_slug: agent.slug,
        subagent_name: agent.name,
        created_by_run_id: context.run.id,
        run_status: outcome.run.status,
        continuing: outcome.continuing,
        subagent_thread_relation_id: outcome.relation.id,
        events_url: eventsUrl(outcome.run.id),
        result_url: resultUrl(outcome.run.id),
      };
    },
  });

  const subagentStatus = defineTool({
    name: 'subagent_status',
    effect: 'read_only',
    description: 'Status, latest progress and, once finished, result of a background subagent run.',
    inputSchema: runIdInput,
    async execute(input, context) {
      const { run, relation } = await owned(context, input.run_id);
      const progress = await readProgress(storage, run.id);
      return {
        status: run.status,
        run_id: run.id,
        thread_id: run.thread_id,
        subagent_slug: relation.subagent_slug,
        error: run.error?.message ?? null,
        // docs/subagents.md#subagent_status names: `progress.messages`, each `{seq, message_id?, tool_call_id?, kind, content}`.
        progress: { last_seq: progress.last_seq, messages: progress.items.map((item) => ({ ...item })) },
        events_url: eventsUrl(run.id),
        result_url: resultUrl(run.id),
        ...(isTerminalStatus(run.status)
          ? { result: runResult(run), verification: verificationPayload(await statusVerification(run)) }
          : {}),
      };
    },
  });

  /** The verdict a terminal child has so far: the stored one, else `unverified` with its evidence. */
  async function statusVerification(run: Run): Promise<Verification> {
    const stored = await storage.verifications.get(run.id);
    return stored?.verification ?? unverified(await readEvidence(storage, run));
  }

  const subagentAwait = defineTool({
    name: 'subagent_await',
    effect: 'read_only',
    description:
      'Wait for background subagent runs (`run_id`, or `run_ids` and `mode`) and return their results.',
    inputSchema: awaitInput,
    async execute(input, context) {
      const timeoutMs = Math.min(input.timeout_ms ?? limits.waitTimeoutMs, limits.waitTimeoutMs);
      const ids = input.run_ids ?? [input.run_id ?? ''];
      const children = await service.getOwnedChildren(context.run.id, context.run.user_id, ids);
      if (!children) throw refusalError(SUBAGENT_TEXTS.notOwned);
      // One suspension for the whole wait: the slot is given back once, not once per awaited run.
      const slugs = new Map(children.map(({ run, relation }) => [run.id, relation.subagent_slug]));
      return waitOutsideSlot(context, () =>
        awaitRuns(ids, input.run_id !== undefined ? 'one' : (input.mode ?? 'all'), timeoutMs, context, slugs),
      );
    },
  });

  /** Waits on owned runs: two reads for the whole batch, however many runs it names. */
  async function awaitRuns(
    ids: string[],
    mode: 'one' | 'all' | 'any',
    timeoutMs: number,
    context: ToolContext,
    slugs: ReadonlyMap<string, string>,
  ): Promise<ToolOutput> {
    const waited = await awaitRunsTerminal(storage, bus, ids, {
      mode: mode === 'any' ? 'any' : 'all',
      timeoutMs,
      signal: context.abortSignal,
    });
    // Each finished child with its verdict; graded (and revised) one after another, in the order asked.
    const checked: { run: Run; verification?: Verification }[] = [];
    for (const run of waited.runs) {
      checked.push(
        isTerminalStatus(run.status) ? await verified(context, run, slugs.get(run.id) ?? '') : { run },
      );
    }
    const payload = ({ run, verification }: (typeof checked)[number], timedOut: boolean) =>
      awaitPayload(run, timedOut && !isTerminalStatus(run.status), verification);
    if (mode === 'one') return payload(checked[0] as (typeof checked)[number], waited.timed_out);
    if (mode === 'any') {
      return {
        mode: 'any',
        wait_timed_out: waited.timed_out,
        finished_run_id: waited.first?.id ?? null,
        runs: checked.map((entry) => payload(entry, true)),
      };
    }
    return {
      mode: 'all',
      wait_timed_out: waited.timed_out,
      runs: checked.map((entry) => payload(entry, waited.timed_out)),
    };
  }

  const subagentCancel = defineTool({
    name: 'subagent_cancel',
    effect: 'idempotent',
    description: 'Cancel a background subagent run.',
    inputSchema: runIdInput,
    async execute(input, context) {
      const { run } = await owned(context, input.run_id);
      const after = (await deps.endings.requestCancel(run.id, CANCELLED)) ?? run;
      await deps.endings.closeSubtree(after);
      return {
        status: after.status,
        run_id: after.id,
        thread_id: after.thread_id,
        events_url: eventsUrl(after.id),
        result_url: resultUrl(after.id),
      };
    },
  });

  const subagentSteer = defineTool({
    name: 'subagent_steer',
    effect: 'external',
    description: 'Send a running background subagent a message; it reads it before its next step.',
    inputSchema: steerInput,
    async execute(input, context) {
      const { run } = await owned(context, input.run_id);
      if (isTerminalStatus(run.status) || run.status === 'cancel_requested')
        throw refusalError(SUBAGENT_TEXTS.steerNotActive(run.status));
      // Owned children are subagent runs, the only runs that read their inbox.
      if (!runCapabilities(run).steerable) throw refusalError(SUBAGENT_TEXTS.notOwned);
      await storage.inbox.push(run.id, input.message);
      return { status: 'queued', run_id: run.id, run_status: run.status, message: SUBAGENT_TEXTS.steered };
    },
  });

  return [task, subagentStart, subagentStatus, subagentAwait, subagentCancel, subagentSteer];
}
