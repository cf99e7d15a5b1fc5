import { createHash } from 'node:crypto';

/**
 * Names for server-side prepared statements (docs/scale-out.md, "Prepared statements"). PostgreSQL parses and
 * plans an unnamed statement on every execution; for the hot path's short statements that was about as much
 * server CPU as running them (planning alone 7 ms of a dispatch's 21 ms, much of it in `lseek` calls that
 * size every relation a plan touches). A named statement is parsed once per connection, and after five
 * executions PostgreSQL keeps a generic plan when it is no worse.
 *
 * A name is a digest of the SQL text, so every process and every connection agrees on it without coordination,
 * and two texts never share one. A text is named from its second use in the process on: a statement run once
 * (a migration, a bulk insert of an odd size) never takes a place among a connection's prepared statements,
 * which each connection bounds at `limit`, dropping its least recently used one (PostgresConnection).
 */
export class StatementNames {
  readonly #seenOnce = new Set<string>();
  readonly #names = new Map<string, string>();

  constructor(
    /** Prepared statements per connection at most. */
    readonly limit: number,
  ) {}

  /** The name for `sql`, or undefined when it should run unnamed (its first use). */
  nameOf(sql: string): string | undefined {
    const known = this.#names.get(sql);
    if (known !== undefined) return known;
    if (!this.#seenOnce.has(sql)) {
      // Bounded memory: forgetting a text only delays its name by one more use.
      if (this.#seenOnce.size >= SEEN_ONCE_KEPT) this.#seenOnce.clear();
      this.#seenOnce.add(sql);
      return undefined;
    }
    this.#seenOnce.delete(sql);
    // 16 hex digits (64 bits): a collision among a few thousand texts is out of reach.
    const name = `trp_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    // Names are digests: a cleared cache hands out the same names again.
    if (this.#names.size >= NAMES_KEPT) this.#names.clear();
    this.#names.set(sql, name);
    return name;
  }
}

const SEEN_ONCE_KEPT = 2_000;
const NAMES_KEPT = 2_000;

/**
 * SQLSTATEs of a named statement the server can no longer run as prepared: 0A000 "cached plan must not change
 * result type" (a migration changed the columns a `select *` returns) and 26000 "prepared statement does not
 * exist" (the session lost it: DISCARD ALL by a pooler in between).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '0A000' || code === '26000';
}
