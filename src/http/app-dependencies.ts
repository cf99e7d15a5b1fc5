import type { TroupeConfig } from '../config.js';
import type { Storage } from '../core/ports/storage.js';
import type { AgentService } from '../runtime/agents/agent-service.js';
import type { ArtifactService } from '../runtime/artifacts/artifact-service.js';
import type { AttachmentService } from '../runtime/attachments/attachment-service.js';
import type { AuthService } from '../runtime/auth/auth-service.js';
import type { BuildReportService } from '../runtime/build-report/build-report-service.js';
import type { AgUiService } from '../runtime/ag-ui/ag-ui-service.js';
import type { CompletionService } from '../runtime/completions/completion-service.js';
import type { AgentsApiService } from '../runtime/agents-api/agents-api-service.js';
import type { ConversationService } from '../runtime/conversations/conversation-service.js';
import type { ClientDelegationService } from '../runtime/delegation/client-delegation-service.js';
import type { DelegationPolicyService } from '../runtime/delegation/delegation-policy-service.js';
import type { ExpertService } from '../runtime/agents/expert-service.js';
import type { KnowledgeService } from '../runtime/knowledge/knowledge-service.js';
import type { ProjectService } from '../runtime/projects/project-service.js';
import type { RunServiceApi } from '../runtime/runs/run-service-api.js';
import type { SkillService } from '../runtime/skills/skill-service.js';
import type { ForkService } from '../runtime/runs/fork/fork-service.js';
import type { RunViews } from '../runtime/runs/inspect/run-views.js';
import type { Readiness } from '../runtime/readiness.js';
import type { Logger } from './logger.js';

/**
 * Everything the HTTP layer needs. The services are the runtime's (`createRuntime`), in production and in
 * tests alike: no route builds a service of its own.
 */
export interface AppDependencies {
  config: TroupeConfig;
  storage: Storage;
  auth: AuthService;
  agents: AgentService;
  conversations: ConversationService;
  projects: ProjectService;
  runs: RunServiceApi;
  /** Forks and comparisons of runs (docs/effects-and-forks.md). */
  forks: ForkService;
  /** Runs as the API shows them: live usage, a lost worker (docs/usage.md). */
  runViews: RunViews;
  /** Publishing and access grants of experts (docs/delegation.md). */
  experts: ExpertService;
  /** The user's delegation policy (docs/delegation.md). */
  delegationPolicies: DelegationPolicyService;
  /** Build reports of agents and drafts (docs/inline-subagents.md). */
  buildReports: BuildReportService;
  /** `POST /api/delegate`. */
  delegation: ClientDelegationService;
  /** Skills (docs/skills-and-knowledge.md). */
  skills: SkillService;
  /** Knowledge sources (docs/skills-and-knowledge.md). */
  knowledge: KnowledgeService;
  /** Artifact listing and downloads (docs/runtime-tools.md). */
  artifacts: ArtifactService;
  /** `GET /api/ready`: storage, bus and queue. */
  readiness: Readiness;
  /** Attachment uploads (docs/runtime-tools.md). */
  attachments: AttachmentService;
  /** The OpenAI-compatible surface (docs/interoperability.md). */
  completions: CompletionService;
  /** OpenAI's Agents API shape (docs/interoperability.md). */
  agentsApi: AgentsApiService;
  /** AG-UI runs (docs/interoperability.md). */
  agUi: AgUiService;
  /** Built web console (`web/dist`); when missing, `/` explains how to build it. */
  consoleDir?: string;
  /** Defaults to JSON lines on stderr. */
  logger?: Logger;
  /** SSE heartbeat comment interval; default 15 s, shortened in tests. */
  sseHeartbeatMs?: number;
}
