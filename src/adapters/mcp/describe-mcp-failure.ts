import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isTroupeError, type TroupeError } from '../../core/errors.js';

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 10;) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** The egress refusal behind a failure, however deep the SDK wrapped it. */
export function egressRefusal(error: unknown): TroupeError | undefined {
  return causes(error).find((entry): entry is TroupeError => isTroupeError(entry, 'egress_denied'));
}

// McpError.code is a plain number; compare it with the protocol's numbers, not the enum type.
const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout;
const CONNECTION_CLOSED: number = ErrorCode.ConnectionClosed;

/**
 * Why a server could not be used, in words that never carry what the remote end sent (docs/egress-and-secrets.md): an
 * error page's body, a redirect target or a stack would let a member read an internal service through
 * the build report or a tool result. Status codes, socket error codes and protocol codes are enough.
 */
export function describeMcpFailure(error: unknown): string {
  const refusal = egressRefusal(error);
  if (refusal) return refusal.message;
  for (const entry of causes(error)) {
    if (entry instanceof StreamableHTTPError) {
      const status = entry.code;
      if (status !== undefined && status >= 300 && status < 400)
        return `answered with a redirect (HTTP ${status}), which is not followed`;
      return status !== undefined && status > 0
        ? `returned HTTP ${status}`
        : 'answered with something that is not MCP';
    }
    if (entry instanceof McpError) {
      if (entry.code === REQUEST_TIMEOUT) return 'no answer in time';
      if (entry.code === CONNECTION_CLOSED) return 'the connection closed';
      return `answered with MCP error ${entry.code}`;
    }
    const code = entry instanceof Error ? (entry as NodeJS.ErrnoException).code : undefined;
    if (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code)) return `could not be reached (${code})`;
  }
  return 'could not be reached';
}
