import { TroupeError } from '../../core/errors.js';

interface ContentPart {
  type: string;
  text?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  resource?: unknown;
}

export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

function describePart(part: ContentPart): string {
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  if (part.type === 'resource' && typeof part.resource === 'object' && part.resource !== null) {
    const resource = part.resource as { text?: unknown; uri?: unknown };
    if (typeof resource.text === 'string') return resource.text;
    return `[resource ${String(resource.uri)}]`;
  }
  if (part.type === 'resource_link') return `[resource ${String(part.uri)}]`;
  // Images and audio cannot go back through a text tool result; say what was there.
  return `[${part.type}${typeof part.mimeType === 'string' ? ` ${part.mimeType}` : ''} omitted]`;
}

/**
 * An MCP call result as the text the model sees. `isError` results become a thrown TroupeError, which the
 * loop turns into an error tool result — never a failed run.
 */
export function renderMcpResult(toolName: string, result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
  let text = parts.map(describePart).join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError === true) {
    throw new TroupeError(
      'mcp_tool_failed',
      text === '' ? `MCP tool ${toolName} failed without a message` : text,
    );
  }
  return text;
}
