import path from 'node:path';
import type { TroupeConfig } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { EventBus } from '../core/ports/event-bus.js';
import type { ModelProvider } from '../core/ports/model-provider.js';
import type { ModelAdmission } from '../core/ports/model-admission.js';
import { createModelGateway } from './model-gateway/model-gateway.js';
import type { RunQueue } from '../core/ports/run-queue.js';
import type { Storage } from '../core/ports/storage.js';
import type { ToolSource } from '../core/ports/tool-source.js';
import { createArtifactService, type ArtifactService } from './artifacts/artifact-service.js';
import { createAttachmentService, type AttachmentService } from './attachments/attachment-service.js';
import { createAgUiService, type AgUiService } from './ag-ui/ag-ui-service.js';
import { createCompletionService, type CompletionService } from './completions/completion-service.js';
import { createAgentsApiService, type AgentsApiService } from './agents-api/agents-api-service.js';
import { createSessionSandboxMiddleware } from './agents-api/session-sandbox-middleware.js';
import type { MiddlewareFactory } from './middleware/middleware-factory.js';
import { createAgentService, type AgentService } from './agents/agent-service.js';
import { createAuthService, type AuthService } from './auth/auth-service.js';
import { createBuildReportService, type BuildReportService } from './build-report/build-report-service.js';
import { createConversationService, type ConversationService } from './conversations/conversation-service.js';
import {
  createClientDelegationService,
  type ClientDelegationService,
} from './delegation/client-delegation-service.js';
import { createDelegationMiddleware } from './delegation/create-delegation-middleware.js';
import {
  createDelegationRunService,
  type DelegationRunService,
} from './delegation/delegation-run-service.js';
import { createKnowledgeMiddleware } from './knowledge/create-knowledge-middleware.js';
import { createKnowledgeService, type KnowledgeService } from './knowledge/knowledge-service.js';
import { createRunEndings } from './runs/run-endings.js';
import {
  createLeaseReconciler,
  reconcilePeriodMs,
  type LeaseReconciler,
} from './runs/leases/lease-reconciler.js';
import { createRunViews, type RunViews } from './runs/inspect/run-views.js';
import { combineMiddlewareFactories } from './middleware/combine-middleware-factories.js';
import { createProjectService, type ProjectService } from './projects/project-service.js';
import type { Client } from '@a2a-js/sdk/client';
import type { RemoteA2AConnector } from '../core/ports/remote-a2a-connector.js';
import { createRunExecutor, type RunExecutor } from './runs/execute/run-executor.js';
import { createRunService, type RunService } from './runs/run-service.js';
import { createForkService, type ForkService } from './runs/fork/fork-service.js';
import { RunHandoffs } from './runs/start/run-handoffs.js';
import { LocalRunStarts } from './runs/start/local-run-starts.js';
import { createSkillsMiddleware } from './skills/create-skills-middleware.js';
import { WORKDIRS_DIR } from './data-dir/prepare-data-dir.js';
import { sandboxHostOwner } from './tools/execute/sandbox-host-owner.js';
import { createInstallSkillTool } from './skills/install-skill-tool.js';
import { createSkillService, type SkillService } from './skills/skill-service.js';
import { createSubagentMiddleware } from './subagents/create-subagent-middleware.js';
import { createSubagentRunService, type SubagentRunService } from './subagents/subagent-run-service.js';
import { createGraderRunService } from './verification/grader-run-service.js';
import type { VerifyDeps } from './verification/verify-child-result.js';
import type { ExecuteSupport } from './tools/execute/execute-support.js';
import { createHumanTools } from './tools/human/create-human-tools.js';
import type { AnyTroupeTool } from '../core/tools/troupe-tool.js';
import { createWorkdirTools } from './tools/workdir/create-workdir-tools.js';
import type { RunTracer } from '../core/ports/run-tracer.js';
import { createExpertService, type ExpertService } from './agents/expert-service.js';
import { RequestArrivals } from './runs/start/request-arrivals.js';
import {
  createDelegationPolicyService,
  type DelegationPolicyService,
} from './delegation/delegation-policy-service.js';
import { createReadiness, type Readiness } from './readiness.js';

/** The ports and adapters a runtime is built over; the composition root picks them. */
export interface RuntimePorts {
  config: TroupeConfig;
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  clock: Clock;
  models: ModelProvider;
  /** The providers' shared limits (in-process or Redis); the model gateway takes every call's turn there. */
  modelAdmission: ModelAdmission;
  /** External tools (MCP servers) of each agent's config; absent: agents get no MCP tools. */
  toolSource?: ToolSource<AnyTroupeTool>;
  /** Reaches remote A2A experts; absent: their runs fail with a clear error. */
  remoteExperts?: RemoteA2AConnector<Client>;
  /** The `execute` sandbox as probed on this host; absent: no `execute` tool. */
  execute?: ExecuteSupport;
  tracer?: RunTracer | undefined;
  workerId: string;
  /** Operational warnings (e.g. a delegation policy naming experts that no longer exist). */
  warn: (message: string, context?: Record<string, unknown>) => void;
  /** What an embedding adds: tools joining the catalogue, middleware after the built-in factories. */
  extensions?: RuntimeExtensions;
  /**
   * Whether this process executes runs (`--role all` or `worker`, the default); then the runs it creates
   * hand their first thread over to its executor (`RunHandoffs`), which a process that executes nothing
   * would only hold on to.
   */
  executesRuns?: boolean;
}

export interface RuntimeExtensions {
  tools?: AnyTroupeTool[];
  middleware?: MiddlewareFactory;
}

/** Every service of the runtime, ready for the HTTP app, the CLI and the worker loop. */
export interface Runtime {
  catalogueTools: AnyTroupeTool[];
  auth: AuthService;
  agents: AgentService;
  projects: ProjectService;
  conversations: ConversationService;
  runs: RunService;
  /** Forks and comparisons of runs (docs/effects-and-forks.md). */
  forks: ForkService;
  skills: SkillService;
  knowledge: KnowledgeService;
  artifacts: ArtifactService;
  attachments: AttachmentService;
  completions: CompletionService;
  /** OpenAI's Agents API shape (`/v1/agents…`) over agents, conversations and runs. */
  agentsApi: AgentsApiService;
  /** AG-UI runs (`POST /ag-ui/{slug}`). */
  agUi: AgUiService;
  delegation: ClientDelegationService;
  experts: ExpertService;
  delegationPolicies: DelegationPolicyService;
  buildReports: BuildReportService;
  /** Runs as the API shows them: live usage, a lost worker (docs/usage.md). */
  runViews: RunViews;
  /** The child-run starts behind `task`/`subagent_*` and `delegate` (one mechanism, `child-runs/`). */
  subagentRuns: SubagentRunService;
  delegationRuns: DelegationRunService;
  /** Evidence and grading of child results (docs/verified-delegation.md). */
  verify: VerifyDeps;
  executor: RunExecutor;
  reconciler: LeaseReconciler;
  /** Counted by the HTTP layer, read by run starts (`RequestArrivals`). */
  requests: RequestArrivals;
  /** Whether storage, bus and queue can serve (`GET /api/ready`). */
  readiness: Readiness;
}

/**
 * Ports and config in, services out: the one place the runtime is wired, including the ordered list of
 * middleware factories every run's stack is built from (tracing outermost, then subagents, delegation,
 * skills and knowledge; `runMiddlewareStack` adds the guards and the gate, which also counts usage, inside them).
 */
export function createRuntime(ports: RuntimePorts): Runtime {
  const { config, storage, bus, queue, clock } = ports;
  const { limits, defaultModel } = config;
  const { execute } = ports;
  const skills = createSkillService({ storage, limits: config.skillLimits, clock });
  const catalogueTools = [
    ...createWorkdirTools(),
    ...createHumanTools(storage),
    ...(execute?.tools ?? []),
    createInstallSkillTool({ storage, skills }),
    ...(ports.extensions?.tools ?? []),
  ];
  const handoffs = ports.executesRuns === false ? undefined : new RunHandoffs();
  const localStarts = ports.executesRuns === false ? undefined : new LocalRunStarts();
  // How runs end and are cancelled, over this runtime's storage, bus and clock: one object for every caller.
  const endings = createRunEndings({ storage, bus, clock });
  const childDeps = { storage, bus, queue, clock, limits, defaultModel, handoffs, localStarts };
  const subagentRuns = createSubagentRunService(childDeps);
  const delegationRuns = createDelegationRunService(childDeps);
  // Graders are child runs too, on the same start (docs/verified-delegation.md#the-grader).
  const verify = { storage, bus, graders: createGraderRunService(childDeps) };
  const knowledge = createKnowledgeService(storage, {
    limits: { maxUploadBytes: config.knowledgeMaxUploadBytes },
  });
  const executor = createRunExecutor({
    storage,
    bus,
    models: ports.models,
    tools: catalogueTools,
    toolSources: ports.toolSource ? [ports.toolSource] : [],
    middleware: combineMiddlewareFactories(
      ...(ports.tracer ? [ports.tracer.middleware] : []),
      createSubagentMiddleware({ storage, bus, endings, limits, service: subagentRuns, verify }),
      createDelegationMiddleware({ storage, limits, service: delegationRuns, verify }),
      createSkillsMiddleware({ storage, warn: ports.warn }),
      createKnowledgeMiddleware({ storage, service: knowledge }),
      createSessionSandboxMiddleware(storage),
      ...(ports.extensions?.middleware ? [ports.extensions.middleware] : []),
    ),
    limits,
    gateway: createModelGateway({
      admission: ports.modelAdmission,
      models: ports.models,
      settings: config.modelCalls,
    }),
    leaseMs: config.leaseMs,
    ...(config.modelPrices ? { prices: config.modelPrices } : {}),
    concurrency: config.workerConcurrency,
    workerId: ports.workerId,
    clock,
    endings,
    queue,
    ...(ports.remoteExperts ? { remoteExperts: ports.remoteExperts } : {}),
    ...(ports.tracer ? { tracer: ports.tracer } : {}),
    ...(handoffs ? { handoffs } : {}),
    ...(localStarts ? { localStarts } : {}),
  });
  const agents = createAgentService(storage, { limits });
  const workdirOwner = sandboxHostOwner(config.execute.sandboxUid);
  const projects = createProjectService(storage, {
    workdirRoot: path.join(config.dataDir, WORKDIRS_DIR),
    ...(workdirOwner ? { workdirOwner } : {}),
  });
  const conversations = createConversationService({ storage, agents, projects });
  const requests = new RequestArrivals();
  const runViews = createRunViews({
    storage,
    clock,
    takeover: { everyMs: reconcilePeriodMs(config.leaseMs), policy: config.leaseExpiry },
  });
  const runs = createRunService({
    storage,
    bus,
    queue,
    endings,
    defaultModel,
    ...(handoffs ? { handoffs } : {}),
    requests,
    views: runViews,
    catalogue: catalogueTools,
  });
  const files = config.files;
  const artifacts = createArtifactService({ storage, maxDownloadBytes: files.artifactMaxDownloadBytes });
  return {
    catalogueTools,
    auth: createAuthService(storage),
    agents,
    projects,
    conversations,
    runs,
    forks: createForkService({
      storage,
      queue,
      views: runViews,
      models: ports.models,
      prices: config.modelPrices,
    }),
    skills,
    knowledge,
    artifacts,
    attachments: createAttachmentService({
      storage,
      limits: { maxBytes: files.attachmentMaxBytes, maxFiles: files.attachmentMaxFiles },
    }),
    completions: createCompletionService({ agents, conversations, runs }),
    agentsApi: createAgentsApiService({
      storage,
      agents,
      conversations,
      runs,
      runViews,
      artifacts,
      defaultModel,
      executeAvailable: catalogueTools.some((tool) => tool.name === 'execute'),
    }),
    agUi: createAgUiService({ storage, agents, conversations, runs }),
    delegation: createClientDelegationService({ storage, runs: delegationRuns, projects, verify, limits }),
    experts: createExpertService(storage, agents),
    delegationPolicies: createDelegationPolicyService(storage, ports.warn),
    buildReports: createBuildReportService({
      storage,
      agents,
      catalogue: catalogueTools.map((tool) => tool.name),
      ...(ports.toolSource ? { toolSource: ports.toolSource } : {}),
      defaultModel,
      ...(execute ? { agentEntries: (agent) => execute.reportEntries(agent) } : {}),
    }),
    runViews,
    subagentRuns,
    delegationRuns,
    verify,
    executor,
    requests,
    readiness: createReadiness({ storage, bus, queue }),
    reconciler: createLeaseReconciler({
      storage,
      endings,
      queue,
      clock,
      leaseMs: config.leaseMs,
      policy: config.leaseExpiry,
    }),
  };
}
