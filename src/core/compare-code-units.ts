/**
 * Code-unit order: the same in every process whatever its locale, unlike `localeCompare`. Lists rendered into a
 * model's prompt use it, so that two processes of a cluster send the same prefix (docs/model-calls.md#prompt-caching).
 */
export function compareCodeUnits(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}
