import { z } from 'zod';
import { declaredWindowFields } from '../../core/model-calls/model-windows.js';
import type { A2ARemoteConfig, AgentConfig, McpServerConfig } from '../../core/records/agent.js';
import { TOOL_APPROVAL_MODES } from '../../core/records/agent.js';
import { TOOL_EFFECTS } from '../../core/tools/tool-effect.js';
import { executeConfigSchema } from '../tools/execute/execute-config-schema.js';
import { agentLimitsSchema } from './agent-limits.js';
import { budgetSchema } from '../budgets/budget-schema.js';

const nameList = z.array(z.string().min(1).max(200)).max(500);
const modelSpec = z.string().min(1).max(300);

export const mcpServerConfigSchema = z
  .object({
    name: z.string().min(1).max(100),
    transport: z.enum(['stdio', 'http']),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    timeout_ms: z.number().int().positive().optional(),
    effect: z
      .enum(TOOL_EFFECTS)
      .optional()
      .describe("Every tool of this server has this effect class, whatever the server's annotations say"),
    tool_effects: z
      .record(z.string().min(1).max(200), z.enum(TOOL_EFFECTS))
      .optional()
      .describe("Effect classes of single tools, by the server's tool name; wins over `effect`"),
  })
  .strict()
  .superRefine((server, context) => {
    // Caught at save time so a typo does not surface as a failed run much later.
    if (server.transport === 'stdio' && server.command === undefined) {
      context.addIssue({ code: 'custom', path: ['command'], message: 'stdio MCP servers need a command' });
    }
    if (server.transport === 'http' && server.url === undefined) {
      context.addIssue({ code: 'custom', path: ['url'], message: 'http MCP servers need a url' });
    }
  });

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const a2aRemoteConfigSchema = z
  .object({
    card_url: httpUrl.max(2000),
    headers: z.record(z.string().min(1).max(200), z.string().max(8000)).optional(),
    timeout_ms: z.number().int().positive().max(86_400_000).optional(),
  })
  .strict();

/**
 * `AgentConfig` as a strict schema: an unknown key is a mistake worth a 400, not something to store and
 * silently ignore. `subagent_specs` stays `unknown[]` because the spec builder (docs/inline-subagents.md) drops bad entries
 * at run time and reports them; rejecting them here would make that report unreachable.
 */
export const agentConfigSchema = z
  .object({
    system_prompt: z.string().max(200_000).optional(),
    model: modelSpec.optional(),
    model_fallbacks: z.array(modelSpec).max(10).optional(),
    model_retry: z
      .object({
        max_retries: z.number().int().min(0).max(100).optional(),
        max_wait_ms: z.number().int().min(0).max(86_400_000).optional(),
      })
      .strict()
      .optional(),
    ...declaredWindowFields,
    compaction_model: modelSpec
      .optional()
      .describe("The model that writes compaction summaries; the agent's own model when unset"),
    compact_at: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("Share of the window (beside the answer's room) above which the prompt is compacted first"),
    max_continuations: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('How many times a text answer cut by the output limit is continued before output_truncated'),
    tools: nameList.optional(),
    mcp_servers: z.array(mcpServerConfigSchema).max(50).optional(),
    skills: nameList.optional(),
    knowledge_sources: nameList.optional(),
    subagents: nameList.optional(),
    subagent_specs: z.array(z.unknown()).max(200).optional(),
    disable_general_purpose: z.boolean().optional(),
    tool_approval_mode: z.enum(TOOL_APPROVAL_MODES).optional(),
    keep_background_runs: z.boolean().optional(),
    prompt_cache: z
      .boolean()
      .optional()
      .describe('Prompt caching hints to the provider (default true; docs/model-calls.md#prompt-caching)'),
    max_steps: z.number().int().positive().max(10_000).optional(),
    execute: executeConfigSchema.optional(),
    limits: agentLimitsSchema.optional(),
    budget: budgetSchema.optional(),
    grader: z
      .object({
        model: modelSpec.optional().describe("The grader's model; default: the server default model"),
        rubric: z.string().max(20_000).optional().describe('Added to the grader instructions'),
        max_revisions: z
          .number()
          .int()
          .min(0)
          .max(5)
          .optional()
          .describe('Revisions asked of a child before its last verdict stands (default 1)'),
      })
      .strict()
      .optional()
      .describe('How children started with acceptance criteria are graded (docs/verified-delegation.md)'),
    a2a: a2aRemoteConfigSchema.optional(),
  })
  .strict();

// Optional keys make object types mutually assignable even when one lacks a key, so compare keys too.
type Same<TLeft, TRight> = [TLeft, keyof TLeft] extends [TRight, keyof TRight]
  ? [TRight, keyof TRight] extends [TLeft, keyof TLeft]
    ? true
    : false
  : false;

/** Fails to compile when the schemas and the record types drift apart. */
export const AGENT_CONFIG_SCHEMA_MATCHES_RECORD: Same<z.output<typeof agentConfigSchema>, AgentConfig> = true;
export const MCP_SCHEMA_MATCHES_RECORD: Same<z.output<typeof mcpServerConfigSchema>, McpServerConfig> = true;
export const A2A_SCHEMA_MATCHES_RECORD: Same<z.output<typeof a2aRemoteConfigSchema>, A2ARemoteConfig> = true;
