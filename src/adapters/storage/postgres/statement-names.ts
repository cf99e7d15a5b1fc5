import { createHash } from 'node:crypto';

/**
 * Names for server-side prepared statements (docs/scale-out.md, "Prepared statements"). PostgreSQL parses and
 * plans an unnamed statement on every execution; for the hot path's short statements that was about as much
 * server CPU as running them (planning alone 9 ms of a dispatch's 25 ms, most of it in `lseek` calls that size
 * every relation a plan touches). A named statement is parsed once per connection, and after five executions
 * PostgreSQL keeps a generic plan when it is no worse.
 *
 * A name is a digest of the SQL text, so every process and every connection agrees on it without coordination,
 * and two texts never share one. The set of names is bounded: a statement whose text is new once the bound is
 * reached runs unnamed (as before), so a query whose SQL varies with its input (an IN list of any length) cannot
 * grow every connection's server-side cache without end.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();

  constructor(readonly limit: number) {}

  /** The name for `sql`, or undefined when it should run unnamed. */
  nameOf(sql: string): string | undefined {
    const known = this.#names.get(sql);
    if (known !== undefined || this.#names.size >= this.limit) return known;
    // 16 hex digits (64 bits): a collision among a few hundred texts is out of reach.
    const name = `trp_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    this.#names.set(sql, name);
    return name;
  }
}

/**
 * SQLSTATEs of a named statement the server can no longer run as prepared: 0A000 "cached plan must not change
 * result type" (a migration changed the columns a `select *` returns) and 26000 "prepared statement does not
 * exist" (the session lost it: DISCARD ALL by a pooler in between).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '0A000' || code === '26000';
}
