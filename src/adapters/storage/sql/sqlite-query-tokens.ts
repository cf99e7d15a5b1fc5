import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';

/** The tokenizer of `knowledge_chunks_fts` (knowledge-migration.ts); a contract test checks they agree. */
export const FTS5_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** Rowids of the scratch table, unique in the process, so concurrent searches never touch each other's rows. */
let nextRowid = 1;

/**
 * The index's own tokens for query words (lowercased, diacritics removed, Porter-stemmed), de-duplicated in
 * order: the form the fts5vocab table lists a word under. FTS5 has no SQL function that tokenizes, so the
 * words go through a scratch FTS5 table with the index's tokenizer in the connection's temp schema (never
 * written to the database file), and its own fts5vocab table reads the tokens back.
 */
export async function sqliteQueryTokens(
  db: Kysely<DatabaseSchema>,
  terms: readonly string[],
): Promise<string[]> {
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.knowledge_query_terms
    USING fts5(term, tokenize = ${sql.lit(FTS5_TOKENIZER)})`.execute(db);
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.knowledge_query_tokens
    USING fts5vocab(temp, knowledge_query_terms, instance)`.execute(db);
  const first = nextRowid;
  const last = first + terms.length - 1;
  nextRowid = last + 1;
  const rows = terms.map((term, index) => sql`(${first + index}, ${term})`);
  await sql`INSERT INTO temp.knowledge_query_terms(rowid, term) VALUES ${sql.join(rows)}`.execute(db);
  try {
    const tokens = await sql<{ term: string }>`
      SELECT term FROM temp.knowledge_query_tokens
      WHERE doc BETWEEN ${first} AND ${last}
      ORDER BY doc, "offset"
    `.execute(db);
    return [...new Set(tokens.rows.map((row) => row.term))];
  } finally {
    await sql`DELETE FROM temp.knowledge_query_terms WHERE rowid BETWEEN ${first} AND ${last}`.execute(db);
  }
}
