import { questionsOf } from '../../core/questions/user-questions.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { RunView, ToolApproval } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { ApiRequiredAction, ApiSession, ApiSessionStatus } from './agents-api-objects.js';
import { agentSettings } from './agent-object.js';
import { agentHasSandbox, apiEnvironment, sessionExtras } from './session-environment.js';
import { apiUsage, seconds, sumUsage } from './turn-object.js';

/** The label under which a Troupe tool waiting for approval is shown (an MCP approval request's server). */
export const TROUPE_SERVER_LABEL = 'troupe';

/** What a session is built from: its conversation, agent, runs (oldest first) and the last run's pending inputs. */
export interface SessionParts {
  conversation: Conversation;
  agent: Agent | undefined;
  runs: readonly RunView[];
  pending: readonly ToolApproval[];
  defaultModel: string;
  executeAvailable: boolean;
}

/**
 * A pending approval is an `mcp_approval_request` (answered with `…input.mcp_approval_request_result`); a
 * pending `ask_user_question` is a `function_call` the client answers with `…input.tool_result`.
 */
export function requiredAction(input: ToolApproval): ApiRequiredAction {
  if (input.kind === 'question') {
    return {
      type: 'function_call',
      call_id: input.tool_call_id,
      name: input.tool_name,
      arguments: { questions: questionsOf(input.args) },
      turn_id: input.run_id,
    };
  }
  return {
    type: 'mcp_approval_request',
    request_id: input.tool_call_id,
    turn_id: input.run_id,
    request: {
      type: 'mcp_tool_call',
      name: input.tool_name,
      arguments: input.args ?? null,
      message: `The agent wants to call ${input.tool_name}: approve or deny it`,
      server_label: TROUPE_SERVER_LABEL,
    },
  };
}

/** The session's status from its last turn: none or ended well is `idle`, ended badly is `failed`. */
export function sessionStatus(last: RunView | undefined, pending: readonly ToolApproval[]): ApiSessionStatus {
  if (last === undefined) return 'idle';
  // Pending from the moment the call asks (the run parks right after): a client may answer it at once.
  if (pending.length > 0 && !isTerminalStatus(last.status)) return 'requires_action';
  if (!isTerminalStatus(last.status)) return 'in_progress';
  return last.status === 'failed' || last.status === 'interrupted' ? 'failed' : 'idle';
}

export function toApiSession(parts: SessionParts): ApiSession {
  const { conversation, agent, runs, pending } = parts;
  const last = runs.at(-1);
  const status = sessionStatus(last, pending);
  const extras = sessionExtras(conversation);
  const environment =
    extras.environment ??
    (agent !== undefined && agentHasSandbox(agent, parts.executeAvailable)
      ? { type: 'openai_hosted' as const }
      : { type: 'none' as const });
  const activity = [conversation.updated_at, ...runs.map((run) => run.updated_at)];
  return {
    id: conversation.id,
    object: 'agent.session',
    agent: {
      id: conversation.agent_id,
      // A deleted agent's settings are gone with it.
      ...agentSettings(agent ?? { name: 'Deleted agent', config: {} }, parts.defaultModel),
    },
    created_at: seconds(conversation.created_at),
    environment: apiEnvironment(environment, conversation, agent),
    error: status === 'failed' ? (last?.error?.message ?? `The last turn ended as ${last?.status}`) : null,
    last_active_at: Math.max(...activity.map(seconds)),
    metadata: extras.metadata,
    required_actions: status === 'requires_action' ? pending.map(requiredAction) : [],
    status,
    usage: sumUsage(runs.map((run) => apiUsage(run.usage))),
    vault_ids: [],
  };
}
