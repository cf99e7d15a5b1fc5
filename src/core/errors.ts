/**
 * The one error type of Troupe. Every failure that crosses a boundary (HTTP, CLI, tool result) carries a
 * stable machine `code`; the HTTP status for each code lives in `src/http/error-status.ts`, an exhaustive
 * table, so adding a code without deciding its status is a compile error.
 */
export const ERROR_CODES = [
  // request shape
  'invalid_json',
  'validation_failed',
  'payload_too_large',
  'unsupported_media_type',
  'route_not_found',
  // identity
  'unauthorized',
  'forbidden',
  // records
  'user_not_found',
  'user_exists',
  'token_not_found',
  'agent_not_found',
  'agent_slug_taken',
  'agent_backend_mismatch',
  'subagent_cannot_be_default',
  'agent_not_chattable',
  'subagent_cannot_be_published',
  'grant_not_found',
  'project_not_found',
  'conversation_not_found',
  'conversation_archived',
  'run_not_found',
  'step_not_found',
  // runs
  'run_busy',
  'request_id_conflict',
  'invalid_transition',
  'run_not_waiting',
  'approval_not_found',
  'approval_decided',
  // forks (docs/effects-and-forks.md)
  'fork_override_forbidden',
  'fork_point_invalid',
  // models and tools
  'invalid_model_spec',
  'model_not_found',
  'model_call_failed',
  'context_overflow',
  'output_truncated',
  'scenario_invalid',
  'tool_not_found',
  'tool_input_invalid',
  'path_outside_workdir',
  'file_not_found',
  'file_too_large',
  'mcp_server_unavailable',
  'remote_expert_unavailable',
  'remote_task_failed',
  'budget_exhausted',
  'inactivity_timeout',
  'mcp_tool_failed',
  'mcp_tool_timeout',
  'sandbox_failed',
  // configuration
  'config_invalid',
  // skills
  'skill_not_found',
  'skill_name_taken',
  'skill_invalid',
  'skill_too_large',
  // knowledge sources
  'knowledge_source_not_found',
  'knowledge_source_name_taken',
  'knowledge_document_not_found',
  'document_unreadable',
  'document_too_large',
  // anything else is a bug or an infrastructure failure
  'internal',
  'storage_busy',
  'storage_unavailable',
  'bus_unavailable',
  'queue_unavailable',
  // outbound calls and authentication (docs/egress-and-secrets.md)
  'egress_denied',
  'too_many_requests',
  // questions, artifacts and attachments
  'question_not_found',
  'question_answered',
  'artifact_not_found',
  'artifact_file_missing',
  'artifact_too_large',
  'attachment_not_found',
  'attachment_too_large',
  'too_many_attachments',
  'invalid_multipart',
  // the OpenAI Agents API shape (docs/interoperability.md)
  'session_not_found',
  'turn_not_found',
  'subagent_not_found',
  'environment_not_available',
  'not_supported',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface TroupeErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class TroupeError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: TroupeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'TroupeError';
    this.code = code;
    this.details = options.details;
  }
}

export function isTroupeError(value: unknown, code?: ErrorCode): value is TroupeError {
  return value instanceof TroupeError && (code === undefined || value.code === code);
}

/** Boundary helper: anything thrown becomes a TroupeError; unknown failures are `internal`. */
export function toTroupeError(thrown: unknown): TroupeError {
  if (thrown instanceof TroupeError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new TroupeError('internal', message || 'Unexpected failure', { cause: thrown });
}
