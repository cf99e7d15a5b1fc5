import { setMaxListeners } from 'node:events';
import type { Subscription } from '../../../core/ports/event-bus.js';
import { isGraderRun } from '../../../core/verification/grader-agent.js';
import type { RunReservation } from '../start/local-run-starts.js';
import { attemptMetadata } from './attempt-metadata.js';
import { attemptAnnounced } from './attempt-announced.js';
import type { RunExecutorDeps } from './run-executor-deps.js';
import { runRemoteAttempt } from './run-remote-attempt.js';
import type { Run } from '../../../core/records/run.js';
import { createRunUsageMeter, type RunUsageMeter } from '../../usage/run-usage-meter.js';
import type { RunAttemptContext } from '../../../core/ports/storage.js';
import { RunAbortError } from '../../../core/runs/run-abort.js';
import { createRunGateMiddleware } from './run-gate-middleware.js';
import { cacheTokenWeights } from '../../../core/budgets/cache-token-weights.js';
import { loadRunContext } from './load-run-context.js';
import { resumeAgentLoop } from './resume-agent-loop.js';
import { createRunOutcomes, type AttemptFacts } from '../end/run-outcomes.js';
import { runMiddlewareStack } from './run-middleware-stack.js';
import { watchRun, type RunWatch } from './run-watch.js';
import { createRunEmitter } from '../../events/create-run-emitter.js';
import { announceAttempt } from './announce-attempt.js';
import { resolveRunAgent } from '../../agents/resolve-run-agent.js';
import { createWorkerSlots } from './worker-slots.js';
import { effectiveLimits } from '../../agents/agent-limits.js';
import { createRunLease } from '../leases/run-lease.js';
import { createStorageOutage, type StorageOutage } from '../../../core/runs/storage-outage.js';

export interface RunExecutor {
  /** Claims and executes one run; a run another worker holds, or a finished one, is left alone. */
  execute(runId: string): Promise<void>;
  start(): Promise<void>;
  /** Aborts runs in flight and hands them back (pending), so another worker resumes them. */
  stop(): Promise<void>;
  readonly activeRuns: number;
}

/**
 * How long a model call keeps its run's slot before giving it up to wait: long enough for a call that
 * answers at once (no re-queue, its commits still shared with the runs around it), far below any provider's
 * latency.
 */
const MODEL_CALL_SLOT_GRACE_MS = 5;

export function createRunExecutor(deps: RunExecutorDeps): RunExecutor {
  const { storage, bus, clock } = deps;
  const slots = createWorkerSlots(deps.concurrency);
  const lease = createRunLease({ storage, clock, workerId: deps.workerId, leaseMs: deps.leaseMs });
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Runs whose decisions all landed before they parked: executed again once their slot is free. */
  const decidedBeforePark = new Set<string>();
  // Runs enqueued again while still in flight here (resumed by a reply that came in as the run parked):
  // executed once the current execution has let go of them, instead of the enqueue being lost.
  const enqueuedWhileInFlight = new Set<string>();
  let stopping = false;
  let signals: Subscription | undefined;

  const abort = (runId: string, reason: RunAbortError | RunAbortError['kind']): RunAbortError => {
    const error = typeof reason === 'string' ? new RunAbortError(reason) : reason;
    const entry = inFlight.get(runId);
    if (entry && !entry.controller.signal.aborted) entry.controller.abort(error);
    return error;
  };

  async function execute(runId: string): Promise<void> {
    if (inFlight.has(runId)) {
      enqueuedWhileInFlight.add(runId);
      return;
    }
    // A slot first, the claim after: a run waiting for a slot holds no lease and stays pending.
    await slots.acquire();
    await inTakenSlot(runId, () => claimAndExecute(runId));
  }

  /** Runs `work` in the slot the caller took, then gives it back; a run decided while it parked goes again. */
  async function inTakenSlot(runId: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } finally {
      slots.release();
    }
    // A stopping executor leaves it pending: the reconciler re-enqueues stale pending runs.
    if (decidedBeforePark.delete(runId) && !stopping) await execute(runId);
  }

  async function claimAndExecute(runId: string): Promise<void> {
    if (inFlight.has(runId)) {
      enqueuedWhileInFlight.add(runId);
      return;
    }
    // The attempt reads its context right after the claim unless its creator handed it over: then with it.
    if (deps.handoffs?.hasContext(runId) === true) {
      const run = await lease.claim(runId);
      if (run) await executeHeld(run, false);
      return;
    }
    const claimed = await lease.claimWithContext(runId);
    if (claimed) await executeHeld(claimed.run, false, claimed.context);
  }

  /**
   * Executes a run this worker holds: claimed here, or claimed for it by the transaction that created it
   * (`adopted`, see LocalRunStarts), in a slot the caller holds.
   */
  async function executeHeld(run: Run, adopted: boolean, context?: RunAttemptContext): Promise<void> {
    const runId = run.id;
    const controller = new AbortController();
    // Every tool call, child wait and model call of the run in flight listens to this signal and removes its
    // listener when it ends; a step fanning out to more than ten children is not a leak, and Node's warning
    // at eleven would say so in every such deployment's log.
    setMaxListeners(0, controller.signal);
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    inFlight.set(runId, { controller, done });
    // Held after `stop` collected the runs in flight: handed back at once, like those.
    if (stopping) controller.abort(new RunAbortError('shutdown'));
    const held = lease.hold(run, (kind) => abort(runId, kind));
    const outage = createStorageOutage({
      lease: held,
      signal: controller.signal,
      clock,
      leaseMs: deps.leaseMs,
    });
    try {
      const work = () => executeClaimed(run, controller.signal, adopted, outage, { context });
      await (deps.tracer ? deps.tracer.traceRun(run, work) : work());
    } finally {
      held.release();
      inFlight.delete(runId);
      resolveDone();
      // Failures of a claim are the queue handler's to report; here there is no caller left to tell.
      if (enqueuedWhileInFlight.delete(runId) && !stopping) void execute(runId).catch(() => undefined);
    }
  }

  /** A slot for a run its creator is about to create and claim for this worker (LocalRunStarts). */
  function reserve(): RunReservation | undefined {
    if (stopping || !slots.tryAcquire()) return undefined;
    let settled = false;
    return {
      claim: lease.terms(),
      start(run) {
        if (settled) throw new Error('a run reservation was used twice');
        settled = true;
        // Like a queue handler's: executeClaimed records the run's own failures; nothing is left to tell.
        void inTakenSlot(run.id, () => executeHeld(run, true)).catch(() => undefined);
      },
      release() {
        // Once started the slot is the run's; a start that failed or created nothing gives it back.
        if (settled) return;
        settled = true;
        slots.release();
      },
    };
  }

  /**
   * An attempt, from what is committed. A database outage does not end it: the worker waits it out holding the
   * run's slot and lease (`StorageOutage`); the emitter sends again what surely was not written, and anything
   * else starts the attempt over (`resumed`: no second `metadata`, unless the first one was lost), where the
   * thread says the run is, so calls with a committed result are not run again (docs/scale-out.md, "Outages").
   * `context`: what the claim read of the run's context with it; an attempt started over reads it again.
   */
  async function executeClaimed(
    run: Run,
    signal: AbortSignal,
    adopted: boolean,
    outage: StorageOutage,
    {
      meter = createRunUsageMeter(run.usage, run.model_spec),
      resumed = false,
      context: claimed,
    }: { meter?: RunUsageMeter; resumed?: boolean; context?: RunAttemptContext | undefined } = {},
  ): Promise<void> {
    let emitter = createRunEmitter(storage, bus, run, outage);
    let watch: RunWatch | undefined;
    let facts: AttemptFacts | undefined;
    let again = false;
    const handoff = resumed ? undefined : deps.handoffs?.take(run);
    // Read while the context and the middleware's rosters are read: nothing before the loop writes the thread,
    // and on PostgreSQL the reads then share one wait (docs/scale-out.md). A failure surfaces where it is used.
    const threadRead = handoff?.thread ? undefined : storage.messages.list(run.thread_id);
    threadRead?.catch(() => undefined);
    try {
      const context = await loadRunContext(storage, run, handoff?.context ?? claimed);
      const { agent: usable, ledger } = context;
      const attempt: AttemptFacts = { agent: usable, hasLedger: ledger !== undefined };
      facts = attempt;
      watch = watchRun({
        emitter,
        ledger,
        inactivityTimeoutMs: effectiveLimits(deps.limits, usable.config).inactivityTimeoutMs,
        abort: (reason) => abort(run.id, reason),
      });
      emitter = watch.emitter;
      const { paused } = watch;
      // A remote expert's run is a remote task: no model, no tools, no middleware of this server. A grader of a
      // remote expert's result is not: it plays the grader on this server (docs/verified-delegation.md#remote-experts).
      if (usable.backend === 'a2a' && !isGraderRun(run)) {
        const outcome = await runRemoteAttempt(deps, {
          run,
          agent: usable,
          emitter,
          signal,
          meter,
          adopted,
          resumed,
        });
        await emitter.flush();
        await finishCompleted(run, outcome, meter.usage, facts);
        return;
      }
      // An inline subagent run plays a spec of its parent agent; `agent` is then that spec's effective agent.
      const { agent, tools } = await resolveRunAgent(run, usable, {
        catalogue: deps.tools,
        toolSources: deps.toolSources,
      });
      const model = deps.models.resolve(run.model_spec);
      if (!resumed || !(await attemptAnnounced(storage, run)))
        await announceAttempt(storage, emitter, run, attemptMetadata(run, agent, model.label), adopted);
      const gate = createRunGateMiddleware({
        storage,
        endings: deps.endings,
        clock,
        run,
        budget: ledger ? { tokens: ledger.limits.tokens !== undefined } : undefined,
        cacheWeights: (spec) => cacheTokenWeights(deps.prices, spec),
        meter,
        stop: (reason) => abort(run.id, reason),
        outage,
      });
      const extra = deps.middleware
        ? await deps.middleware({
            run,
            agent,
            user: context.user,
            conversation: context.conversation,
            project: context.project,
            hasLedger: ledger !== undefined,
            emitter,
            tools,
          })
        : [];
      const limits = effectiveLimits(deps.limits, agent.config);
      const window = deps.gateway.contextWindow({ agent, emitter });
      const middleware = runMiddlewareStack({
        storage,
        run,
        agent,
        extra,
        context: window,
        gate,
        toolResultMaxTokens: limits.toolResultMaxTokens,
      });
      const callModel = deps.gateway.forRun({
        emitter,
        // A run waiting on a provider holds no execution slot: the providers' limits are the throttle.
        outsideSlot: (work) => slots.outsideOnceWaiting(work, MODEL_CALL_SLOT_GRACE_MS),
        waiting: paused,
        beforeAttempt: () => gate.recheck(),
      });
      const outcome = await resumeAgentLoop({
        storage,
        run,
        agent,
        model,
        tools,
        emitter,
        middleware,
        meter,
        callModel,
        workdir: context.project.workdir,
        signal,
        maxSteps: limits.maxSteps,
        suspend: (work) => slots.outside(() => paused(work)),
        thread: handoff?.thread ?? (await threadRead),
        unsteered: !resumed && adopted && run.attempt === 1,
        finish: (tx, append, output, commit) =>
          outcomes.completeIn(tx, append, run, output, meter.usage, attempt, commit),
      });
      await emitter.flush();
      await finishCompleted(run, outcome, meter.usage, facts);
    } catch (thrown) {
      await emitter.flush().catch(() => undefined);
      const failure = await outage.settle(thrown);
      if (failure === undefined) again = true;
      else await finishAfterError(run, failure, signal, emitter, meter.usage, facts);
    } finally {
      watch?.stop();
    }
    if (again) await executeClaimed(run, signal, adopted, outage, { meter, resumed: true });
  }

  const outcomes = createRunOutcomes({
    storage,
    bus,
    endings: deps.endings,
    workerId: deps.workerId,
    ...(deps.queue ? { queue: deps.queue } : {}),
    ...(deps.onTerminal ? { onTerminal: deps.onTerminal } : {}),
    onDecidedBeforePark: (runId) => decidedBeforePark.add(runId),
  });
  const finishCompleted = outcomes.completed;
  const finishAfterError = outcomes.afterError;

  return {
    execute,
    async start() {
      stopping = false;
      deps.localStarts?.attach(reserve);
      signals ??= await bus.subscribeSignals((signal) => {
        if (signal.type === 'cancel') abort(signal.run_id, 'cancel');
      });
    },
    async stop() {
      stopping = true;
      deps.localStarts?.attach(undefined);
      await signals?.unsubscribe();
      signals = undefined;
      // Until none is left: a run can join while this waits (a child whose start was committing took its slot
      // before the stop, a claim already under way), and is handed back at once, like these.
      while (inFlight.size > 0) {
        const waiting = [...inFlight.entries()].map(([runId, entry]) => {
          abort(runId, 'shutdown');
          return entry.done;
        });
        await Promise.all(waiting);
      }
    },
    get activeRuns() {
      return inFlight.size;
    },
  };
}
