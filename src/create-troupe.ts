/**
 * Composition root: the only module that picks concrete adapters (SQLite or PostgreSQL, memory or Redis
 * bus, in-process or Redis queue, model providers) and wires them into the runtime and the HTTP app.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Hono } from 'hono';
import type { AppEnv } from './http/app-env.js';
import { createMemoryEventBus } from './adapters/bus/memory/create-memory-event-bus.js';
import { createMcpToolSource } from './adapters/mcp/create-mcp-tool-source.js';
import { createRemoteA2AConnector } from './adapters/a2a/create-remote-a2a-connector.js';
import type { Agent } from './core/records/agent.js';
import { createRedisEventBus } from './adapters/bus/redis/create-redis-event-bus.js';
import { createModelProvider } from './adapters/models/create-model-provider.js';
import { createMemoryModelAdmission } from './adapters/model-admission/memory/create-memory-model-admission.js';
import { createRedisModelAdmission } from './adapters/model-admission/redis/create-redis-model-admission.js';
import { localWhileRedisDown } from './adapters/model-admission/local-while-redis-down.js';
import type { ModelAdmission } from './core/ports/model-admission.js';
import { createRedisRunQueue } from './adapters/queue/redis/create-redis-run-queue.js';
import { createMemoryRunQueue } from './adapters/queue/memory/create-memory-run-queue.js';
import { createPostgresStorage } from './adapters/storage/postgres/create-postgres-storage.js';
import { createSqliteStorage } from './adapters/storage/sqlite/create-sqlite-storage.js';
import { repeatLimitedError, stderrLogger, type Logger } from './http/logger.js';
import type { TroupeConfig } from './config.js';
import { refuseRedisWithoutDatabase, type ProcessRole } from './check-deployment.js';
import { systemClock, type Clock } from './core/clock.js';
import { createEgressPolicy } from './core/egress/egress-policy.js';
import type { EventBus } from './core/ports/event-bus.js';
import type { RunQueue } from './core/ports/run-queue.js';
import type { Storage } from './core/ports/storage.js';
import { createApp } from './http/create-app.js';
import type { AgentService } from './runtime/agents/agent-service.js';
import { attachEndedRun, endedRunOf } from './runtime/runs/end/ended-run-of.js';
import type { AuthService } from './runtime/auth/auth-service.js';
import type { ConversationService } from './runtime/conversations/conversation-service.js';
import type { LeaseReconciler } from './runtime/runs/leases/lease-reconciler.js';
import type { ProjectService } from './runtime/projects/project-service.js';
import type { RunExecutor } from './runtime/runs/execute/run-executor.js';
import type { RunService } from './runtime/runs/run-service.js';
import { createExecuteSupport } from './runtime/tools/execute/execute-support.js';
import { sandboxHostOwner } from './runtime/tools/execute/sandbox-host-owner.js';
import { prepareDataDir } from './runtime/data-dir/prepare-data-dir.js';
import type { SkillService } from './runtime/skills/skill-service.js';
import type { KnowledgeService } from './runtime/knowledge/knowledge-service.js';
import type { RunTracer } from './core/ports/run-tracer.js';
import { createRuntime } from './runtime/create-runtime.js';
import type { RequestArrivals } from './runtime/runs/start/request-arrivals.js';

export interface Troupe {
  config: TroupeConfig;
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  clock: Clock;
  auth: AuthService;
  agents: AgentService;
  projects: ProjectService;
  conversations: ConversationService;
  runs: RunService;
  knowledge: KnowledgeService;
  executor: RunExecutor;
  reconciler: LeaseReconciler;
  app: Hono<AppEnv>;
  /** The client requests arriving in each event-loop turn, counted by `listen` (`RequestArrivals`). */
  requests: RequestArrivals;
  skills: SkillService;
  close(): Promise<void>;
}

export interface CreateTroupeOptions {
  role?: ProcessRole;
  clock?: Clock;
}

function describeError(error: unknown): { error: string } {
  return { error: error instanceof Error ? error.message : String(error) };
}

/** PostgreSQL when `databaseUrl` is set, else the embedded SQLite file in `dataDir`. */
async function openStorage(config: TroupeConfig, clock: Clock, log: Logger): Promise<Storage> {
  if (config.databaseUrl) {
    const storageError = repeatLimitedError(log, 'PostgreSQL connection error');
    return createPostgresStorage({
      connectionString: config.databaseUrl,
      preparedStatements: config.databasePreparedStatements,
      clock,
      onError: (error) => storageError(describeError(error)),
    });
  }
  return createSqliteStorage({ filename: path.join(config.dataDir, 'troupe.db'), clock });
}

/**
 * Queue handlers in flight per process: the bound on runs in flight here. Deliberately far above
 * `workerConcurrency`: the executor's worker slots bound only the work between waits, and a run waiting on
 * a provider or on its children gives its slot back but keeps its handler (docs/model-calls.md), so a
 * queue limited to `workerConcurrency` would let waiting parents starve their own children and make the slots
 * the throttle of runs that spend their life waiting on a model.
 */
const QUEUE_HANDLERS = 1000;

/** Redis Streams and a Redis run queue when `redisUrl` is set, else the in-process bus and queue. */
async function openMessaging(config: TroupeConfig, log: Logger): Promise<{ bus: EventBus; queue: RunQueue }> {
  if (!config.redisUrl) {
    return { bus: createMemoryEventBus(), queue: createMemoryRunQueue({ concurrency: QUEUE_HANDLERS }) };
  }
  const busError = repeatLimitedError(log, 'Redis event bus error');
  const queueError = repeatLimitedError(log, 'Redis run queue error');
  const bus = await createRedisEventBus({
    url: config.redisUrl,
    onError: (error) => busError(describeError(error)),
    endedRuns: { read: endedRunOf, attach: (event, run) => attachEndedRun([event], run) },
  });
  try {
    const queue = await createRedisRunQueue({
      url: config.redisUrl,
      concurrency: QUEUE_HANDLERS,
      onError: (runId, error) => log.error('Run handler failed', { run_id: runId, ...describeError(error) }),
      onConnectionError: (error) => queueError(describeError(error)),
    });
    return { bus, queue };
  } catch (error) {
    await bus.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The providers' limits and pauses: in Redis when `redisUrl` is set, so every process shares them; else in
 * this process.
 */
async function openModelAdmission(config: TroupeConfig, log: Logger): Promise<ModelAdmission> {
  const limits = config.modelCalls.limits;
  if (!config.redisUrl) return createMemoryModelAdmission({ limits });
  // One repeat-limited line for the adapter's connection errors and the calls admitted locally meanwhile.
  const admissionError = repeatLimitedError(
    log,
    'Redis model admission error (model calls are admitted by this process’s limits meanwhile)',
  );
  const onRedisError = (error: unknown) => admissionError(describeError(error));
  const shared = await createRedisModelAdmission({ url: config.redisUrl, limits, onError: onRedisError });
  return localWhileRedisDown(shared, createMemoryModelAdmission({ limits }), onRedisError);
}

/**
 * OpenTelemetry traces for processes that execute runs, when configured. Imported on demand: with tracing
 * off no OpenTelemetry module is loaded and no span is ever created.
 */
async function openTracer(
  config: TroupeConfig,
  role: ProcessRole,
  storage: Storage,
  log: Logger,
): Promise<RunTracer | undefined> {
  if (!config.tracing || role === 'api') return undefined;
  const { createOtlpRunTracer } = await import('./adapters/telemetry/create-otlp-run-tracer.js');
  return createOtlpRunTracer(config.tracing, storage, (message) => log.warn(message));
}

export async function createTroupe(config: TroupeConfig, options: CreateTroupeOptions = {}): Promise<Troupe> {
  const role = options.role ?? 'all';
  const clock = options.clock ?? systemClock;
  const log = stderrLogger;
  refuseRedisWithoutDatabase(config);
  const tightened = await prepareDataDir(config.dataDir, sandboxHostOwner(config.execute.sandboxUid));
  if (tightened.length > 0) log.warn(`Tightened permissions in ${config.dataDir}: ${tightened.join('; ')}`);
  const storage = await openStorage(config, clock, log);
  let messaging: { bus: EventBus; queue: RunQueue };
  try {
    messaging = await openMessaging(config, log);
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
  const { bus, queue } = messaging;
  let modelAdmission: ModelAdmission;
  try {
    modelAdmission = await openModelAdmission(config, log);
  } catch (error) {
    await Promise.all(
      [queue.close(), bus.close(), storage.close()].map((closing) => closing.catch(() => undefined)),
    );
    throw error;
  }
  const models = createModelProvider({
    scenarioDir: config.scenarioDir,
    openaiCompatible: config.openaiCompatible,
    openaiBaseUrl: config.openaiBaseUrl,
    openaiApiKey: config.openaiApiKey,
    anthropicBaseUrl: config.anthropicBaseUrl,
    anthropicApiKey: config.anthropicApiKey,
  });
  const workerId = `wrk_${process.pid}_${randomBytes(4).toString('hex')}`;
  // A stdio MCP server is a command on this host: only agents owned by an admin may start one.
  // What a non-admin's agent may reach over http (docs/egress-and-secrets.md); an admin's agents are the operator's own.
  const egress = {
    policy: createEgressPolicy(config.egressAllow),
    appliesTo: async (agent: Agent) => (await storage.users.get(agent.owner_id))?.role !== 'admin',
  };
  const mcp = createMcpToolSource({
    allowStdio: async (agent) => (await storage.users.get(agent.owner_id))?.role === 'admin',
    warn: (message) => log.warn(message),
    egress,
  });
  const remoteExperts = createRemoteA2AConnector({ egress, signer: config.a2aIdentity.signer });
  // `execute` joins the catalogue only when the sandbox works here; otherwise the log says why.
  const execute = await createExecuteSupport({
    settings: config.execute,
    storage,
    warn: (message) => log.warn(message),
  });
  const tracer = await openTracer(config, role, storage, log);
  const runtime = createRuntime({
    config,
    storage,
    bus,
    queue,
    clock,
    models,
    modelAdmission,
    toolSource: mcp,
    remoteExperts,
    execute,
    tracer,
    workerId,
    warn: (message, context) => log.warn(message, context),
    executesRuns: role !== 'api',
  });
  const { executor, reconciler } = runtime;
  const app = createApp({
    ...runtime,
    config,
    storage,
    consoleDir: path.resolve(import.meta.dirname, '../web/dist'),
  });

  // `api` serves HTTP only: it enqueues runs and reads them, but executes none, consumes no queue and
  // reconciles no leases. `worker` and `all` do all three.
  if (role !== 'api') {
    await executor.start();
    queue.process((runId) => executor.execute(runId));
    // Runs left behind by a previous process (crash, kill -9) are taken back before new work starts.
    await reconciler.reconcileOnce();
    reconciler.start();
  }

  return {
    config,
    storage,
    bus,
    queue,
    clock,
    auth: runtime.auth,
    agents: runtime.agents,
    projects: runtime.projects,
    conversations: runtime.conversations,
    runs: runtime.runs,
    knowledge: runtime.knowledge,
    executor,
    reconciler,
    app,
    requests: runtime.requests,
    skills: runtime.skills,
    async close() {
      reconciler.stop();
      await executor.stop();
      // After the executor: the spans of runs it just handed back are exported too.
      await tracer
        ?.shutdown()
        .catch((error: unknown) => log.warn('Trace export failed at shutdown', describeError(error)));
      await mcp.close();
      remoteExperts.close();
      await queue.close();
      await modelAdmission.close();
      await bus.close();
      await storage.close();
    },
  };
}

export { listen, type RunningServer } from './listen-troupe.js';
