import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryEventBus } from '../../src/adapters/bus/memory/create-memory-event-bus.js';
import {
  createModelProvider,
  type ModelProviderOptions,
} from '../../src/adapters/models/create-model-provider.js';
import { createMemoryModelAdmission } from '../../src/adapters/model-admission/memory/create-memory-model-admission.js';
import { createMemoryRunQueue } from '../../src/adapters/queue/memory/create-memory-run-queue.js';
import { createSqliteStorage } from '../../src/adapters/storage/sqlite/create-sqlite-storage.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/run-limits.js';
import { loadConfig, type TroupeConfig } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import type { EventBus } from '../../src/core/ports/event-bus.js';
import type { ModelAdmission } from '../../src/core/ports/model-admission.js';
import type { ToolSource } from '../../src/core/ports/tool-source.js';
import type { RunQueue } from '../../src/core/ports/run-queue.js';
import type { NewAgent, Storage } from '../../src/core/ports/storage.js';
import type { Agent, AgentConfig } from '../../src/core/records/agent.js';
import type { Conversation } from '../../src/core/records/conversation.js';
import type { User } from '../../src/core/records/user.js';
import type { MiddlewareFactory } from '../../src/runtime/middleware/middleware-factory.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { prepareDataDir } from '../../src/runtime/data-dir/prepare-data-dir.js';
import { sandboxHostOwner } from '../../src/runtime/tools/execute/sandbox-host-owner.js';
import type { LeaseReconciler } from '../../src/runtime/runs/leases/lease-reconciler.js';
import type { RunExecutor } from '../../src/runtime/runs/execute/run-executor.js';
import type { RunService } from '../../src/runtime/runs/run-service.js';
import type { SubagentRunService } from '../../src/runtime/subagents/subagent-run-service.js';
import type { DelegationRunService } from '../../src/runtime/delegation/delegation-run-service.js';
import type { VerifyDeps } from '../../src/runtime/verification/verify-child-result.js';
import type { AnyTroupeTool } from '../../src/core/tools/troupe-tool.js';
import type { RunTracer } from '../../src/core/ports/run-tracer.js';
import { checkedEventBus } from './checked-event-bus.js';

export interface RuntimeHarnessOptions {
  /** Configuration beside the defaults (e.g. file limits); the options below win over it. */
  config?: Partial<TroupeConfig>;
  /** Operational warnings of the runtime (e.g. delegation policy truncation); default: dropped. */
  warn?: (message: string, context?: Record<string, unknown>) => void;
  /** Scenario files by name (`demo` → `demo.yaml`), written to a temp scenario dir. */
  scenarios?: Record<string, string>;
  extraTools?: AnyTroupeTool[];
  /** An external tool source (e.g. an MCP source over test servers); the caller closes it. */
  toolSource?: ToolSource<AnyTroupeTool>;
  middleware?: MiddlewareFactory;
  limits?: Partial<RunLimits>;
  leaseMs?: number;
  leasePolicy?: 'resume' | 'fail';
  /** Start the worker (default true); false leaves runs pending, to test what happens before a worker. */
  startWorker?: boolean;
  /**
   * False: the runtime of a process that executes no runs (`--role api`: no hand-overs to a local executor); the
   * harness's worker, when started, then plays another process's worker on the same queue.
   */
  executesRuns?: boolean;
  /** Executor worker slots (default 16). */
  concurrency?: number;
  workerId?: string;
  /** Model provider settings besides the scenario folder (e.g. base URLs of fake OpenAI/Anthropic servers). */
  models?: Partial<Omit<ModelProviderOptions, 'scenarioDir'>>;
  /** The providers' limits (default: in-process, over `config.modelCalls.limits`); the harness closes it. */
  modelAdmission?: ModelAdmission;
  /** Run spans around executions, its model/tool-span middleware outermost, as production wires them. */
  tracer?: (storage: Storage) => RunTracer;
  /** Another store than the temp SQLite file (a PostgreSQL server of the test's own); closed with the harness. */
  storage?: () => Promise<Storage>;
}

export interface RuntimeHarness {
  dir: string;
  /** The production runtime (`createRuntime`) the harness is built on. */
  runtime: Runtime;
  config: TroupeConfig;
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  executor: RunExecutor;
  runs: RunService;
  subagents: SubagentRunService;
  delegation: DelegationRunService;
  verify: VerifyDeps;
  reconciler: LeaseReconciler;
  createUser(name: string, role?: User['role']): Promise<User>;
  createAgent(owner: User, slug: string, config: AgentConfig, overrides?: Partial<NewAgent>): Promise<Agent>;
  createConversation(user: User, agent: Agent): Promise<Conversation>;
  close(): Promise<void>;
}

/**
 * The real runtime on a real SQLite file (or `storage`), in-memory bus and in-process queue, with scripted
 * models.
 */
export async function createRuntimeHarness(options: RuntimeHarnessOptions = {}): Promise<RuntimeHarness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-runtime-'));
  const scenarioDir = path.join(dir, 'scenarios');
  mkdirSync(scenarioDir);
  for (const [name, body] of Object.entries(options.scenarios ?? {})) {
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  }
  const config: TroupeConfig = {
    ...loadConfig({}, dir),
    dataDir: dir,
    scenarioDir,
    defaultModel: 'scripted:demo',
    ...options.config,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    leaseMs: options.leaseMs ?? 30_000,
    leaseExpiry: options.leasePolicy ?? 'resume',
    workerConcurrency: options.concurrency ?? 16,
  };
  // As the server does at start: what the sandbox of a root server needs to reach the workdirs.
  await prepareDataDir(dir, sandboxHostOwner(config.execute.sandboxUid));
  const storage = options.storage
    ? await options.storage()
    : await createSqliteStorage({ filename: path.join(dir, 'troupe.db') });
  const checked = checkedEventBus(createMemoryEventBus());
  const { bus } = checked;
  const queue = createMemoryRunQueue({ concurrency: 1000 });
  const modelAdmission =
    options.modelAdmission ?? createMemoryModelAdmission({ limits: config.modelCalls.limits });
  // The production wiring, minus the adapters a test does not reach (execute sandbox, remote experts).
  const runtime = createRuntime({
    config,
    storage,
    bus,
    queue,
    clock: systemClock,
    models: createModelProvider({ scenarioDir, openaiCompatible: {}, ...options.models }),
    modelAdmission,
    ...(options.toolSource ? { toolSource: options.toolSource } : {}),
    tracer: options.tracer?.(storage),
    workerId: options.workerId ?? 'wrk_test',
    ...(options.executesRuns !== undefined ? { executesRuns: options.executesRuns } : {}),
    warn: options.warn ?? (() => undefined),
    extensions: {
      ...(options.extraTools ? { tools: options.extraTools } : {}),
      ...(options.middleware ? { middleware: options.middleware } : {}),
    },
  });
  const { executor, reconciler, runs } = runtime;
  if (options.startWorker !== false) {
    await executor.start();
    queue.process((runId) => executor.execute(runId));
  }

  return {
    dir,
    runtime,
    config,
    storage,
    bus,
    queue,
    executor,
    runs,
    subagents: runtime.subagentRuns,
    delegation: runtime.delegationRuns,
    verify: runtime.verify,
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
      // The production project service: the workdir is made (mode, owner) as a server makes it.
      const project = await runtime.projects.createProject(user, 'Default');
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
      await modelAdmission.close();
      await bus.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
      const problems = checked.problems();
      if (problems.length > 0) throw new Error(`events outside runEventSchema:\n${problems.join('\n')}`);
    },
  };
}
