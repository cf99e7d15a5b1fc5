/**
 * A lookup of a table keyed by model id prefix: a dated or suffixed id (`gpt-4o-2024-11-20`,
 * `claude-3-5-sonnet-latest`) takes the longest prefix that ends at a `-`, `:` or `@`. A router's `vendor/model`
 * id (OpenRouter, LiteLLM) is looked up by its last segment; case is ignored.
 */
export function modelPrefixTable<T>(table: Readonly<Record<string, T>>): (modelId: string) => T | undefined {
  const prefixes = Object.keys(table).sort((a, b) => b.length - a.length);
  return (modelId) => {
    const id = (modelId.split('/').pop() ?? modelId).toLowerCase();
    for (const prefix of prefixes) {
      if (!id.startsWith(prefix)) continue;
      const next = id.charAt(prefix.length);
      if (next === '' || next === '-' || next === ':' || next === '@') return table[prefix];
    }
    return undefined;
  };
}
