import { z } from 'zod';
import type { AgentRetrySettings } from '../model-calls/retry-schedule.js';
import type { BudgetLimits } from '../budgets/budget.js';
import type { ToolEffect } from '../tools/tool-effect.js';
import { nullableTimestamp, timestamp } from './record-fields.js';
/**
 * `chat`: a main agent played by the agent loop; `subagent`: a child of main agents; `a2a`: a remote A2A
 * agent an admin registered as an expert (docs/interoperability.md), whose runs are remote tasks.
 */
export const AGENT_BACKENDS = ['chat', 'subagent', 'a2a'] as const;
export type AgentBackend = (typeof AGENT_BACKENDS)[number];

export const AGENT_VISIBILITIES = ['private', 'shared', 'public'] as const;
export type AgentVisibility = (typeof AGENT_VISIBILITIES)[number];

export const EXPERT_STATUSES = ['draft', 'published'] as const;
export type ExpertStatus = (typeof EXPERT_STATUSES)[number];

export const TOOL_APPROVAL_MODES = ['default', 'always_trust'] as const;
export type ToolApprovalMode = (typeof TOOL_APPROVAL_MODES)[number];

export interface McpServerConfig {
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  timeout_ms?: number;
  /** The effect class of every tool of this server, whatever its annotations say (docs/effects-and-forks.md). */
  effect?: ToolEffect;
  /** The effect class of single tools, by the server's own tool name; wins over `effect`. */
  tool_effects?: Record<string, ToolEffect>;
}

/** Where a remote A2A expert lives. `headers` (credentials) are secrets: write-only like MCP headers. */
export interface A2ARemoteConfig {
  /** The agent card, e.g. `https://agents.example.com/a2a/analyst/.well-known/agent-card.json`. */
  card_url: string;
  headers?: Record<string, string>;
  /** Longest wait for the remote task to end; the server's child wait timeout otherwise. */
  timeout_ms?: number;
}

/** Inline subagent spec (Profy model). Kept loose on purpose: the spec builder reports what is wrong. */
export type InlineSubagentSpec = unknown;

export interface AgentConfig {
  system_prompt?: string;
  /** `provider:model`, e.g. `openai:gpt-4o-mini`, `scripted:demo`. */
  model?: string;
  /** Models that take a call, in order, once the model's retries ran out on a retryable failure. */
  model_fallbacks?: string[];
  /** Narrows the server's retry bounds (`TROUPE_MODEL_MAX_RETRIES`, `TROUPE_MODEL_MAX_WAIT_MS`). */
  model_retry?: AgentRetrySettings;
  /** The model's context window in tokens; overrides the built-in table (docs/model-calls.md#context-windows). */
  context_window?: number;
  /** The most tokens the model answers in one call; sent to the provider as its limit. */
  max_output_tokens?: number;
  /** The model that writes compaction summaries; the agent's own model when unset. */
  compaction_model?: string;
  /** Share (0–1] of the window left beside the answer's room above which a prompt is compacted first. */
  compact_at?: number;
  /** How many times a text answer cut by the output limit is continued; the server's setting when unset. */
  max_continuations?: number;
  /** Tool names or patterns (`*`, `mcp__server__*`) from the tool catalogue. */
  tools?: string[];
  mcp_servers?: McpServerConfig[];
  skills?: string[];
  knowledge_sources?: string[];
  /** Allow-list of subagent slugs; unset or empty means every visible subagent. */
  subagents?: string[];
  subagent_specs?: InlineSubagentSpec[];
  /** Turns off the built-in `general-purpose` subagent (and frees its name for an inline spec). */
  disable_general_purpose?: boolean;
  tool_approval_mode?: ToolApprovalMode;
  keep_background_runs?: boolean;
  /** `false` sends no prompt-caching hints (docs/model-calls.md#prompt-caching); on by default. */
  prompt_cache?: boolean;
  max_steps?: number;
  /** Narrows the server's `execute` sandbox limits for this agent; `network` asks for the host network. */
  execute?: AgentExecuteConfig;
  /** Only for backend `a2a`: the remote agent this expert stands for. */
  a2a?: A2ARemoteConfig;
  /** Per-agent limits (docs/subagents.md): each narrows the server's setting of the same name, never raises it. */
  limits?: AgentLimits;
  /** The budget of this agent's run trees (docs/budgets.md); a request may narrow it, a child carves from it. */
  budget?: BudgetLimits;
  /** How this agent's children with acceptance criteria are graded (docs/verified-delegation.md#configuration). */
  grader?: GraderConfig;
}

/** `config.grader`: defaults are the server default model, no rubric, 1 revision. */
export interface GraderConfig {
  model?: string;
  rubric?: string;
  max_revisions?: number;
}

/** Per-agent `execute` settings: limits may only lower the server's (README "Sandboxed `execute`"). */
export interface AgentExecuteConfig {
  network?: boolean;
  timeout_ms?: number;
  cpu_seconds?: number;
  memory_mb?: number;
  max_processes?: number;
  output_bytes?: number;
}

/** The server's run limits an agent may narrow for its own runs (see `src/runtime/agents/agent-limits.ts`). */
export interface AgentLimits {
  max_steps?: number;
  subagent_max_depth?: number;
  delegation_max_depth?: number;
  max_children_per_run?: number;
  max_children_per_user?: number;
  child_result_cap_bytes?: number;
  /** Tool results over this many tokens are kept in a workdir file (docs/model-calls.md#big-tool-results). */
  tool_result_max_tokens?: number;
  wait_timeout_ms?: number;
  /** A running run that emits nothing for this long is interrupted (docs/budgets.md). */
  inactivity_timeout_ms?: number;
}

/** `config` is documented key by key in docs/records-and-access.md#agent-config. */
export const agentRecord = z.strictObject({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  backend: z.enum(AGENT_BACKENDS),
  is_subagent: z.boolean(),
  owner_id: z.string(),
  visibility: z.enum(AGENT_VISIBILITIES),
  config: z.custom<AgentConfig>(),
  status: z.enum(EXPERT_STATUSES),
  delegatable: z.boolean(),
  delegation_brief: z.string().nullable(),
  is_default: z.boolean(),
  deleted_at: nullableTimestamp,
  created_at: timestamp,
  updated_at: timestamp,
});
export type Agent = z.infer<typeof agentRecord>;

export const ACCESS_SOURCES = ['created', 'granted', 'purchased'] as const;
export type AccessSource = (typeof ACCESS_SOURCES)[number];

export const agentAccessRecord = z.strictObject({
  user_id: z.string(),
  agent_id: z.string(),
  source: z.enum(ACCESS_SOURCES),
  created_at: timestamp,
});
export type AgentAccess = z.infer<typeof agentAccessRecord>;
