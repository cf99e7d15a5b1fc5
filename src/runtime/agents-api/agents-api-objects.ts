/*
 * The objects of OpenAI's Agents API shape as Troupe answers them (docs/interoperability.md#openai-agents-api):
 * the subset of the official SDK's types (`openai` v7, `resources/beta/agents/`) that Troupe's records fill.
 * The HTTP layer documents and checks them field by field (`src/http/response-schemas/agents-api-records.ts`).
 */

export interface ApiTokenUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ApiAgentSettings {
  instructions: string | null;
  model: string;
  multi_agent: { enabled: boolean; max_concurrent_subagents: number | null };
  name: string | null;
  reasoning: { effort: null; summary: null };
  service_tier: 'auto';
  text: { format: { type: 'text' }; verbosity: 'medium' };
  tools: never[];
}

export interface ApiAgent extends ApiAgentSettings {
  id: string;
  object: 'agent';
  created_at: number;
  updated_at: number;
  metadata: Record<string, string>;
}

export type ApiEnvironment =
  | { type: 'none' }
  | {
      type: 'openai_hosted';
      id: string;
      capability_directories: string[];
      files: never[];
      network: { access: 'enabled' | 'disabled'; allowed_domains: string[] };
      packages: { npm: string[]; python: string[]; system: string[] };
      plugins: never[];
      skills: never[];
    }
  | {
      type: 'self_hosted';
      id: string;
      capability_directories: string[];
      remote_url: string;
      workspace_directory: string;
    };

export type ApiRequiredAction =
  | {
      type: 'mcp_approval_request';
      request_id: string;
      turn_id: string;
      request: {
        type: 'mcp_tool_call';
        arguments: unknown;
        message: string;
        name: string | null;
        server_label: string;
      };
    }
  | { type: 'function_call'; arguments: unknown; call_id: string; name: string; turn_id: string };

export type ApiSessionStatus = 'idle' | 'in_progress' | 'requires_action' | 'failed';

export interface ApiSession {
  id: string;
  object: 'agent.session';
  agent: ApiAgentSettings & { id: string };
  created_at: number;
  environment: ApiEnvironment;
  error: string | null;
  last_active_at: number;
  metadata: Record<string, string>;
  required_actions: ApiRequiredAction[];
  status: ApiSessionStatus;
  usage: ApiTokenUsage | null;
  vault_ids: string[];
}

export type ApiTurnStatus = 'queued' | 'in_progress' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface ApiTurn {
  id: string;
  object: 'agent.session.turn';
  agent_id: string;
  session_id: string;
  subagent_id: string | null;
  status: ApiTurnStatus;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  usage: ApiTokenUsage | null;
}

export type ApiItem =
  | {
      type: 'message';
      id: string;
      role: 'user' | 'assistant';
      content: ({ type: 'input_text'; text: string } | { type: 'output_text'; text: string })[];
      phase: 'commentary' | 'final_answer' | null;
      status: 'in_progress' | 'completed' | 'incomplete';
      turn_id: string;
    }
  | {
      type: 'reasoning';
      id: string;
      summary: { type: 'summary_text'; text: string }[];
      status: 'completed';
      turn_id: string;
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: unknown;
      status: 'in_progress' | 'completed' | 'failed' | 'incomplete';
      turn_id: string;
    }
  | {
      type: 'function_call_output';
      id: string;
      call_id: string;
      output: string | null;
      error: string | null;
      status: 'completed' | 'failed';
      turn_id: string;
    };

export interface ApiSubagent {
  id: string;
  object: 'agent.session.subagent';
  session_id: string;
  name: string | null;
  parent_agent_id: string;
  instructions: { type: 'output_text'; text: string }[] | null;
  status: 'active' | 'closed';
  opened_at: number;
  closed_at: number | null;
}

export interface ApiArtifact {
  id: string;
  object: 'agent.session.artifact';
  session_id: string;
  turn_id: string;
  environment_id: string;
  path: string;
  size_bytes: number;
  created_at: number;
}

/** A page as the SDK's `CursorPage` and `ConversationCursorPage` read it. */
export interface ApiPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
