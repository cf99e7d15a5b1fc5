import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import { keepResultInWorkdir, previewOfWorkdirFile } from './keep-result-in-workdir.js';

/**
 * Big tool results stay in files (docs/model-calls.md#big-tool-results): every tool result of the run —
 * catalogue tools, MCP tools, middleware tools — over `maxTokens` is written to the workdir and the model
 * gets its head, tail, size and path. A `read_file` result is a workdir file already: its preview names
 * that file instead of copying it. Child results (`task`, `delegate`) are kept by the same function where
 * they are formatted, where the child result cap (bytes) applies too.
 */
export function createToolResultOffloadMiddleware(maxTokens: number): AgentMiddleware {
  return {
    name: 'tool-result-offload',
    async wrapToolCall(request, next) {
      const result = await next(request);
      const { output } = result;
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      // A token is at least one byte and a UTF-16 unit at most three: most results are settled by length.
      if (text.length * 3 <= maxTokens) return result;
      const readPath = readFilePath(request.toolName, request.input);
      const kept =
        readPath !== undefined && !result.isError
          ? await previewOfWorkdirFile(text, readPath, { maxTokens })
          : await keepResultInWorkdir(text, {
              maxTokens,
              workdir: request.context.workdir,
              id: request.toolCallId,
            });
      return kept === text ? result : { ...result, output: kept };
    },
  };
}

function readFilePath(toolName: string, input: unknown): string | undefined {
  if (toolName !== 'read_file' || typeof input !== 'object' || input === null) return undefined;
  const { path } = input as { path?: unknown };
  return typeof path === 'string' ? path : undefined;
}
