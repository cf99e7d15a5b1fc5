import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode } from '../core/errors.js';

/**
 * The HTTP status of every error code. Exhaustive on purpose: adding a code to `ERROR_CODES` without
 * deciding its status here fails to compile.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  route_not_found: 404,
  unauthorized: 401,
  forbidden: 403,
  user_not_found: 404,
  user_exists: 409,
  token_not_found: 404,
  agent_not_found: 404,
  agent_slug_taken: 409,
  agent_backend_mismatch: 400,
  subagent_cannot_be_default: 400,
  agent_not_chattable: 400,
  subagent_cannot_be_published: 400,
  grant_not_found: 404,
  project_not_found: 404,
  conversation_not_found: 404,
  conversation_archived: 409,
  run_not_found: 404,
  step_not_found: 404,
  run_busy: 409,
  request_id_conflict: 409,
  invalid_transition: 409,
  run_not_waiting: 409,
  approval_not_found: 404,
  approval_decided: 409,
  fork_override_forbidden: 403,
  fork_point_invalid: 400,
  invalid_model_spec: 400,
  model_not_found: 400,
  // The upstream model provider failed, not this server.
  model_call_failed: 502,
  context_overflow: 502,
  // The model kept hitting its output limit: its answer is incomplete (the partial answer is kept).
  output_truncated: 502,
  scenario_invalid: 400,
  tool_not_found: 400,
  tool_input_invalid: 400,
  path_outside_workdir: 400,
  file_not_found: 404,
  file_too_large: 413,
  // An agent's MCP server failed or was too slow, not this server.
  mcp_server_unavailable: 502,
  remote_expert_unavailable: 502,
  remote_task_failed: 502,
  budget_exhausted: 429,
  inactivity_timeout: 504,
  mcp_tool_failed: 502,
  mcp_tool_timeout: 504,
  sandbox_failed: 500,
  // Server configuration is the operator's problem, never the client's.
  config_invalid: 500,
  skill_not_found: 404,
  skill_name_taken: 409,
  skill_invalid: 400,
  skill_too_large: 413,
  knowledge_source_not_found: 404,
  knowledge_source_name_taken: 409,
  knowledge_document_not_found: 404,
  // The upload arrived whole but its content cannot be read as the document type it claims.
  document_unreadable: 422,
  document_too_large: 413,
  internal: 500,
  // Another connection held the database's write lock past the busy timeout: nothing was written, and the
  // same request succeeds once the lock is free (a CLI command or backup in another process).
  storage_busy: 503,
  // The database server is unreachable or restarting (docs/scale-out.md, "Outages"): nothing was written that
  // the answer does not report, and the same request succeeds once it is back.
  storage_unavailable: 503,
  // The event bus or the run queue (Redis) is unreachable: answered by the readiness probe only, since requests
  // go on without them meanwhile (docs/scale-out.md, "Outages").
  bus_unavailable: 503,
  queue_unavailable: 503,
  // The agent's owner may not reach that address: a policy refusal, like forbidden.
  egress_denied: 403,
  too_many_requests: 429,
  question_not_found: 404,
  question_answered: 409,
  artifact_not_found: 404,
  // The artifact's file was deleted or replaced by something that is not a regular file in the workdir.
  artifact_file_missing: 404,
  artifact_too_large: 413,
  attachment_not_found: 404,
  session_not_found: 404,
  turn_not_found: 404,
  subagent_not_found: 404,
  environment_not_available: 400,
  not_supported: 404,
  attachment_too_large: 413,
  too_many_attachments: 400,
  invalid_multipart: 400,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

export function errorStatus(code: ErrorCode): ContentfulStatusCode {
  return ERROR_STATUS[code];
}
