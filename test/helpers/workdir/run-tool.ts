import type { ToolContext, ToolOutput, TroupeTool } from '../../../src/core/tools/troupe-tool.js';

/** Validates like the runtime does (`executeTool`) before executing, so tests see what a model would. */
export async function runTool<TInput>(
  tool: TroupeTool<TInput>,
  input: unknown,
  context: ToolContext,
): Promise<ToolOutput> {
  return tool.execute(tool.inputSchema.parse(input), context);
}

/** For tools whose output is text: fails the test when it is anything else. */
export async function runToolForText<TInput>(
  tool: TroupeTool<TInput>,
  input: unknown,
  context: ToolContext,
): Promise<string> {
  const output = await runTool(tool, input, context);
  if (typeof output !== 'string')
    throw new Error(`${tool.name} returned ${JSON.stringify(output)}, not text`);
  return output;
}
