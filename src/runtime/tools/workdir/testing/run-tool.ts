import type { ToolContext, ToolOutput, TroupeTool } from '../../troupe-tool.js';

/** Validates like the runtime does (`executeTool`) before executing, so tests see what a model would. */
export async function runTool<TInput>(
  tool: TroupeTool<TInput>,
  input: unknown,
  context: ToolContext,
): Promise<ToolOutput> {
  return tool.execute(tool.inputSchema.parse(input), context);
}
