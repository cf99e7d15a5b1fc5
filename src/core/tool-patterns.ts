/**
 * Tool-name patterns used in agent configs: an exact name, `*` (everything), or a prefix ending in `*`
 * such as `mcp__github__*`. Pure, so both the runtime and the spec builder agree on what matches.
 */
export function matchesToolPattern(pattern: string, toolName: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return toolName.startsWith(pattern.slice(0, -1));
  return pattern === toolName;
}

/** The catalogue entries selected by `patterns`, in catalogue order; `undefined` selects everything. */
export function selectByPatterns<T extends { name: string }>(
  catalogue: readonly T[],
  patterns: readonly string[] | undefined,
): T[] {
  if (patterns === undefined) return [...catalogue];
  return catalogue.filter((entry) => patterns.some((pattern) => matchesToolPattern(pattern, entry.name)));
}
