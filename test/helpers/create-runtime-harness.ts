import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryEventBus } from '../../src/adapters/bus/memory/create-memory-event-bus.js';
import {
  createModelProvider,
  type ModelProviderOptions,
} from '../../src/adapters/models/create-model-provider.js';
import { createMemoryRunQueue } from '../../src/adapters/queue/memory/create-memory-run-queue.js';
import { createSqliteStorage } from '../../src/adapters/storage/sqlite/create-sqlite-storage.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import type { EventBus } from '../../src/core/ports/event-bus.js';
import type { ToolSource } from '../../src/core/ports/tool-source.js';
import type { RunQueue } from '../../src/core/ports/run-queue.js';
import type { NewAgent, Storage } from '../../src/core/ports/storage.js';
import type { Agent, AgentConfig } from '../../src/core/records/agent.js';
import type { Conversation } from '../../src/core/records/conversation.js';
import type { User } from '../../src/core/records/user.js';
import { createLeaseReconciler, type LeaseReconciler } from '../../src/runtime/lease-reconciler.js';
import { createRunExecutor, type RunExecutor } from '../../src/runtime/run-executor.js';
import type { MiddlewareFactory } from '../../src/runtime/middleware/middleware-factory.js';
import { createRunService, type RunService } from '../../src/runtime/run-service.js';
import { createWorkdirTools } from '../../src/runtime/tools/workdir/create-workdir-tools.js';
import { createHumanTools } from '../../src/runtime/tools/human/create-human-tools.js';
import { createSubagentMiddleware } from '../../src/runtime/subagents/create-subagent-middleware.js';
import {
  createSubagentRunService,
  type SubagentRunService,
} from '../../src/runtime/subagents/subagent-run-service.js';
import { createDelegationMiddleware } from '../../src/runtime/delegation/create-delegation-middleware.js';
import {
  createDelegationRunService,
  type DelegationRunService,
} from '../../src/runtime/delegation/delegation-run-service.js';
import type { AnyTroupeTool } from '../../src/runtime/tools/troupe-tool.js';
import type { RunTracer } from '../../src/runtime/tracing/run-tracer.js';

export interface RuntimeHarnessOptions {
  /** Scenario files by name (`demo` → `demo.yaml`), written to a temp scenario dir. */
  scenarios?: Record<string, string>;
  extraTools?: AnyTroupeTool[];
  /** External tool sources (e.g. an MCP source over test servers); the caller closes them. */
  toolSources?: ToolSource<AnyTroupeTool>[];
  middleware?: MiddlewareFactory;
  limits?: Partial<RunLimits>;
  leaseMs?: number;
  leasePolicy?: 'resume' | 'fail';
  /** Start the worker (default true); false leaves runs pending, to test what happens before a worker. */
  startWorker?: boolean;
  /** Executor worker slots (default 16). */
  concurrency?: number;
  workerId?: string;
  /** Model provider settings besides the scenario folder (e.g. base URLs of fake OpenAI/Anthropic servers). */
  models?: Partial<Omit<ModelProviderOptions, 'scenarioDir'>>;
  /** Run spans around executions, its model/tool-span middleware outermost, as `main.ts` wires them. */
  tracer?: (storage: Storage) => RunTracer;
}

export interface RuntimeHarness {
  dir: string;
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  executor: RunExecutor;
  runs: RunService;
  subagents: SubagentRunService;
  delegation: DelegationRunService;
  reconciler: LeaseReconciler;
  createUser(name: string, role?: User['role']): Promise<User>;
  createAgent(owner: User, slug: string, config: AgentConfig, overrides?: Partial<NewAgent>): Promise<Agent>;
  createConversation(user: User, agent: Agent): Promise<Conversation>;
  close(): Promise<void>;
}

/** The real runtime on a real SQLite file, in-memory bus and in-process queue, with scripted models. */
export async function createRuntimeHarness(options: RuntimeHarnessOptions = {}): Promise<RuntimeHarness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-runtime-'));
  const scenarioDir = path.join(dir, 'scenarios');
  mkdirSync(scenarioDir);
  for (const [name, body] of Object.entries(options.scenarios ?? {})) {
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  }
  const storage = await createSqliteStorage({ filename: path.join(dir, 'troupe.db') });
  const bus = createMemoryEventBus();
  const queue = createMemoryRunQueue({ concurrency: 1000 });
  const leaseMs = options.leaseMs ?? 30_000;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const subagents = createSubagentRunService({
    storage,
    bus,
    queue,
    clock: systemClock,
    limits,
    defaultModel: 'scripted:demo',
  });
  const subagentMiddleware = createSubagentMiddleware({
    storage,
    bus,
    clock: systemClock,
    limits,
    service: subagents,
  });
  const delegation = createDelegationRunService({
    storage,
    bus,
    queue,
    clock: systemClock,
    limits,
    defaultModel: 'scripted:demo',
  });
  const delegationMiddleware = createDelegationMiddleware({ storage, limits, service: delegation });
  const extraMiddleware = options.middleware;
  const tracer = options.tracer?.(storage);
  const executor = createRunExecutor({
    storage,
    bus,
    models: createModelProvider({ scenarioDir, openaiCompatible: {}, ...options.models }),
    tools: [...createWorkdirTools(), ...createHumanTools(storage), ...(options.extraTools ?? [])],
    toolSources: options.toolSources,
    middleware: async (setup) => [
      ...(tracer ? await tracer.middleware(setup) : []),
      ...(await subagentMiddleware(setup)),
      ...(await delegationMiddleware(setup)),
      ...(extraMiddleware ? await extraMiddleware(setup) : []),
    ],
    limits,
    leaseMs,
    concurrency: options.concurrency ?? 16,
    workerId: options.workerId ?? 'wrk_test',
    clock: systemClock,
    queue,
    ...(tracer ? { tracer } : {}),
  });
  const runs = createRunService({ storage, bus, queue, clock: systemClock, defaultModel: 'scripted:demo' });
  const reconciler = createLeaseReconciler({
    storage,
    bus,
    queue,
    clock: systemClock,
    leaseMs,
    policy: options.leasePolicy ?? 'resume',
  });
  if (options.startWorker !== false) {
    await executor.start();
    queue.process((runId) => executor.execute(runId));
  }

  return {
    dir,
    storage,
    bus,
    queue,
    executor,
    runs,
    subagents,
    delegation,
    reconciler,
    createUser: (name, role = 'member') => storage.users.create({ name, role }),
    async createAgent(owner, slug, config, overrides = {}) {
      const agent = await storage.agents.create({
        slug,
        name: slug,
        description: `${slug} agent`,
        backend: 'chat',
        is_subagent: false,
        owner_id: owner.id,
        visibility: 'private',
        config,
        status: 'draft',
        delegatable: true,
        delegation_brief: null,
        is_default: false,
        ...overrides,
      });
      await storage.access.grant(owner.id, agent.id, 'created');
      return agent;
    },
    async createConversation(user, agent) {
      const projectDir = path.join(dir, 'workdirs', newId('prj'));
      mkdirSync(projectDir, { recursive: true });
      const project = await storage.projects.create({
        user_id: user.id,
        name: 'Default',
        workdir: projectDir,
      });
      return storage.conversations.create({
        user_id: user.id,
        agent_id: agent.id,
        thread_id: newId('thr'),
        project_id: project.id,
        status: 'active',
        title: 'test',
        metadata: {},
      });
    },
    async close() {
      reconciler.stop();
      await executor.stop();
      await queue.close();
      await bus.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
