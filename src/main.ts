/**
 * Composition root: the only module that picks concrete adapters (SQLite or PostgreSQL, memory or Redis
 * bus, in-process or BullMQ queue, model providers) and wires them into the runtime and the HTTP app.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './http/app-env.js';
import { createMemoryEventBus } from './adapters/bus/memory/create-memory-event-bus.js';
import { createModelProvider } from './adapters/models/create-model-provider.js';
import { createMemoryRunQueue } from './adapters/queue/memory/create-memory-run-queue.js';
import { createSqliteStorage } from './adapters/storage/sqlite/create-sqlite-storage.js';
import { runCli } from './cli/run-cli.js';
import { loadConfig, type TroupeConfig } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { TroupeError } from './core/errors.js';
import type { EventBus } from './core/ports/event-bus.js';
import type { RunQueue } from './core/ports/run-queue.js';
import type { Storage } from './core/ports/storage.js';
import { createApp } from './http/create-app.js';
import { createAgentService, type AgentService } from './runtime/agent-service.js';
import { createAuthService, type AuthService } from './runtime/auth-service.js';
import { createConversationService, type ConversationService } from './runtime/conversation-service.js';
import { createLeaseReconciler, type LeaseReconciler } from './runtime/lease-reconciler.js';
import { createProjectService, type ProjectService } from './runtime/project-service.js';
import { createRunExecutor, type RunExecutor } from './runtime/run-executor.js';
import { createRunService, type RunService } from './runtime/run-service.js';
import { createWorkdirTools } from './runtime/tools/workdir/create-workdir-tools.js';
import { createSubagentMiddleware } from './runtime/subagents/create-subagent-middleware.js';
import { createSubagentRunService } from './runtime/subagents/subagent-run-service.js';

export type ProcessRole = 'api' | 'worker' | 'all';

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
  executor: RunExecutor;
  reconciler: LeaseReconciler;
  app: Hono<AppEnv>;
  close(): Promise<void>;
}

export interface CreateTroupeOptions {
  role?: ProcessRole;
  clock?: Clock;
}

export async function createTroupe(config: TroupeConfig, options: CreateTroupeOptions = {}): Promise<Troupe> {
  const role = options.role ?? 'all';
  const clock = options.clock ?? systemClock;
  if (config.databaseUrl || config.redisUrl) {
    throw new TroupeError(
      'config_invalid',
      'TROUPE_DATABASE_URL / TROUPE_REDIS_URL (scale-out mode) are not supported by this build yet; unset them to use the embedded default',
    );
  }
  mkdirSync(config.dataDir, { recursive: true });
  const storage = await createSqliteStorage({ filename: path.join(config.dataDir, 'troupe.db'), clock });
  const bus = createMemoryEventBus();
  const queue = createMemoryRunQueue({ concurrency: config.workerConcurrency });
  const models = createModelProvider({
    scenarioDir: config.scenarioDir,
    openaiCompatible: config.openaiCompatible,
    openaiBaseUrl: config.openaiBaseUrl,
    openaiApiKey: config.openaiApiKey,
    anthropicBaseUrl: config.anthropicBaseUrl,
    anthropicApiKey: config.anthropicApiKey,
  });
  const workerId = `wrk_${process.pid}_${randomBytes(4).toString('hex')}`;
  const subagents = createSubagentRunService({ storage, bus, queue, clock, limits: config.limits });
  const executor = createRunExecutor({
    storage,
    bus,
    models,
    tools: createWorkdirTools(),
    middleware: createSubagentMiddleware({ storage, bus, clock, limits: config.limits, service: subagents }),
    limits: config.limits,
    leaseMs: config.leaseMs,
    workerId,
    clock,
  });
  const reconciler = createLeaseReconciler({ storage, bus, queue, clock, leaseMs: config.leaseMs, policy: config.leaseExpiry });
  const runs = createRunService({ storage, bus, queue, clock, defaultModel: config.defaultModel });
  const auth = createAuthService(storage);
  const agents = createAgentService(storage);
  const projects = createProjectService(storage, { workdirRoot: path.join(config.dataDir, 'workdirs') });
  const conversations = createConversationService({ storage, agents, projects });
  const app = createApp({
    config,
    storage,
    auth,
    agents,
    projects,
    conversations,
    runs,
    consoleDir: path.resolve(import.meta.dirname, '../web/dist'),
  });

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
    auth,
    agents,
    projects,
    conversations,
    runs,
    executor,
    reconciler,
    app,
    async close() {
      reconciler.stop();
      await executor.stop();
      await queue.close();
      await bus.close();
      await storage.close();
    },
  };
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Listens on `config.host:config.port` (port 0 picks a free one) and resolves with the real URL. */
export function listen(troupe: Troupe): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    try {
      server = serve({ fetch: troupe.app.fetch, hostname: troupe.config.host, port: troupe.config.port }, (info) => {
        const host = info.address.includes(':') ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server?.close(() => done());
              // SSE connections would keep the server open forever.
              if (server && 'closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      });
      server.on('error', reject);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const exitCode = await runCli(process.argv.slice(2), { loadConfig, createTroupe, listen });
  if (exitCode !== undefined) process.exit(exitCode);
}
