import { sql } from 'kysely';
import type { KnowledgeSearchQuery } from '../../../core/ports/knowledge-storage.js';
import type { KnowledgeHit } from '../../../core/records/knowledge.js';
import { fromJson, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

interface HitRow {
  chunk_seq: number | string;
  text: string;
  heading_path: string;
  page: number | string | null;
  start_offset: number | string;
  end_offset: number | string;
  document_id: string;
  document_name: string;
  source_id: string;
  source_name: string;
  score: number | string;
}

function hitFromRow(row: HitRow): KnowledgeHit {
  return {
    source_id: row.source_id,
    source_name: row.source_name,
    document_id: row.document_id,
    document_name: row.document_name,
    chunk_seq: toNumber(row.chunk_seq),
    text: row.text,
    location: {
      heading_path: fromJson<string[]>(row.heading_path),
      page: row.page === null ? null : toNumber(row.page),
      start: toNumber(row.start_offset),
      end: toNumber(row.end_offset),
    },
    score: Number(row.score),
  };
}

/** An FTS5 string literal: inside double quotes only `"` is special, and it is doubled. */
function fts5Phrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * SQLite: FTS5 with its built-in BM25 (`bm25()` is lower-is-better, so the score is its negation); heading
 * words weigh twice the body's. Terms are OR-ed: a chunk matching more, and rarer, terms ranks higher.
 */
async function searchSqlite(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  const match = query.terms.map(fts5Phrase).join(' OR ');
  // bm25() is computed in the inner query, over the FTS table alone: joining first would make SQLite carry
  // every matching row through the joins before sorting (measurably slower with common words).
  const result = await sql<HitRow>`
    SELECT c.seq AS chunk_seq, c.text, c.heading_path, c.page, c.start_offset, c.end_offset,
           c.document_id, d.name AS document_name, c.source_id, s.name AS source_name, f.score
    FROM (
      SELECT rowid AS id, -bm25(knowledge_chunks_fts, 2.0, 1.0) AS score
      FROM knowledge_chunks_fts
      WHERE knowledge_chunks_fts MATCH ${match}
    ) f
    JOIN knowledge_chunks c ON c.id = f.id
    JOIN knowledge_documents d ON d.id = c.document_id
    JOIN knowledge_sources s ON s.id = c.source_id
    WHERE c.source_id IN (${sql.join([...query.source_ids])})
    ORDER BY f.score DESC, c.id
    LIMIT ${query.limit}
  `.execute(ctx.db);
  return result.rows.map(hitFromRow);
}

/**
 * PostgreSQL: a BM25-style score from the built-in pieces, since `ts_rank` alone knows nothing of how rare
 * a word is. Each term is its own `plainto_tsquery` (a bound parameter: never parsed as tsquery syntax;
 * stop words drop out); its IDF over the searched sources' chunks, ln(1 + (N − df + ½)/(df + ½)), weights
 * its length-normalised `ts_rank` in each matching chunk, and a chunk's score is the sum over its terms.
 * Matching goes through the GIN index, one term at a time.
 */
async function searchPostgres(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  const terms = [...query.terms];
  const sources = [...query.source_ids];
  const result = await sql<HitRow>`
    WITH queries AS (
      SELECT DISTINCT CAST(plainto_tsquery('english', t) AS text) AS qtext
      FROM unnest(CAST(${terms} AS text[])) AS t
    ),
    matches AS (
      SELECT c.id, queries.qtext, ts_rank(c.tsv, CAST(queries.qtext AS tsquery), 1) AS rank
      FROM queries
      JOIN knowledge_chunks c ON c.tsv @@ CAST(queries.qtext AS tsquery)
      WHERE queries.qtext <> '' AND c.source_id = ANY(CAST(${sources} AS text[]))
    ),
    total AS (
      SELECT CAST(count(*) AS float8) AS n FROM knowledge_chunks WHERE source_id = ANY(CAST(${sources} AS text[]))
    ),
    frequency AS (
      SELECT qtext, CAST(count(*) AS float8) AS df FROM matches GROUP BY qtext
    ),
    scored AS (
      SELECT matches.id, sum(ln(1 + (total.n - frequency.df + 0.5) / (frequency.df + 0.5)) * matches.rank) AS score
      FROM matches
      JOIN frequency ON frequency.qtext = matches.qtext
      CROSS JOIN total
      GROUP BY matches.id
      ORDER BY score DESC, matches.id
      LIMIT ${query.limit}
    )
    SELECT c.seq AS chunk_seq, c.text, c.heading_path, c.page, c.start_offset, c.end_offset,
           c.document_id, d.name AS document_name, c.source_id, s.name AS source_name,
           CAST(scored.score AS float8) AS score
    FROM scored
    JOIN knowledge_chunks c ON c.id = scored.id
    JOIN knowledge_documents d ON d.id = c.document_id
    JOIN knowledge_sources s ON s.id = c.source_id
    ORDER BY scored.score DESC, c.id
  `.execute(ctx.db);
  return result.rows.map(hitFromRow);
}

/** Full-text search over the chunks of `query.source_ids`, best first, through the engine's own index. */
export function searchKnowledgeChunks(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  return ctx.dialect.name === 'sqlite' ? searchSqlite(ctx, query) : searchPostgres(ctx, query);
}
