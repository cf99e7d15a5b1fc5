/** Far below either engine's limit on bound parameters (SQLite 32,766, PostgreSQL 65,535). */
const CHUNK = 500;

/**
 * Rows by a list of ids in as few statements as the engines allow: duplicates are asked once, an empty
 * list asks nothing (`in ()` is not SQL).
 */
export async function selectByIds<R>(
  ids: readonly string[],
  select: (chunk: string[]) => Promise<R[]>,
): Promise<R[]> {
  const unique = [...new Set(ids)];
  const rows: R[] = [];
  for (let start = 0; start < unique.length; start += CHUNK) {
    rows.push(...(await select(unique.slice(start, start + CHUNK))));
  }
  return rows;
}
