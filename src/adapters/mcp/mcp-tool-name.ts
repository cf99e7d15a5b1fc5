/**
 * MCP tools appear as `mcp__{server}__{tool}` (the Claude Code convention the spec patterns such as
 * `mcp__server__*` rely on). Characters model APIs refuse in tool names become `_`.
 */
export function mcpToolPrefix(server: string): string {
  return `mcp__${safe(server)}__`;
}

export function mcpToolName(server: string, tool: string): string {
  return `${mcpToolPrefix(server)}${safe(tool)}`;
}

function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}
