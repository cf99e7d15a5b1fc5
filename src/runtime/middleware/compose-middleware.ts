import type {
  AgentMiddleware,
  ModelCallRequest,
  ModelCallResult,
  ToolCallRequest,
  ToolCallResult,
} from '../../core/ports/agent-middleware.js';

export interface ComposedMiddleware {
  callModel(request: ModelCallRequest): Promise<ModelCallResult>;
  callTool(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** Builds the two chains; the first middleware in the list is the outermost wrapper. */
export function composeMiddleware(
  middleware: readonly AgentMiddleware[],
  innermost: ComposedMiddleware,
): ComposedMiddleware {
  let callModel = (request: ModelCallRequest) => innermost.callModel(request);
  let callTool = (request: ToolCallRequest) => innermost.callTool(request);
  for (const layer of [...middleware].reverse()) {
    const wrapModel = layer.wrapModelCall?.bind(layer);
    if (wrapModel) {
      const next = callModel;
      callModel = (request) => wrapModel(request, next);
    }
    const wrapTool = layer.wrapToolCall?.bind(layer);
    if (wrapTool) {
      const next = callTool;
      callTool = (request) => wrapTool(request, next);
    }
  }
  return { callModel, callTool };
}
