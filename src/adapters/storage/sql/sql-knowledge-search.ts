import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { BM25 } from '../../../core/knowledge/bm25.js';
import type { KnowledgeSearchQuery } from '../../../core/ports/knowledge-storage.js';
import type { KnowledgeHit } from '../../../core/records/knowledge.js';
import { fromJson, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { sqliteQueryTokens } from './sqlite-query-tokens.js';

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

/**
 * The ranking shared by both engines (core/knowledge/bm25.ts), around an engine's `hits` CTE: one row per
 * (term, chunk of the searched sources holding it) with the chunk's `word_count` and the term's weighted `tf`.
 * N and avgdl are sums over the searched sources' documents; df is counted from `hits`, so no statistic
 * reads a chunk outside the searched sources. A chunk's terms are summed in term order, so its score is the
 * same float whatever order the engine found them in.
 */
async function rankedHits(
  ctx: SqlContext,
  ctes: RawBuilder<unknown>,
  sourceFilter: RawBuilder<unknown>,
  limit: number,
): Promise<KnowledgeHit[]> {
  const { k1, b } = BM25;
  const result = await sql<HitRow>`
    WITH ${ctes},
    stats AS (
      SELECT CAST(coalesce(sum(chunk_count), 0) AS double precision) AS n,
             CAST(coalesce(nullif(sum(word_count), 0), 1) AS double precision)
               / coalesce(nullif(sum(chunk_count), 0), 1) AS avg_length
      FROM knowledge_documents WHERE source_id ${sourceFilter}
    ),
    frequency AS (
      SELECT term, count(*) AS df FROM hits GROUP BY term
    ),
    scored AS (
      SELECT hits.id, sum(
        ln(1 + (stats.n - frequency.df + 0.5) / (frequency.df + 0.5))
          * hits.tf * ${sql.lit(k1 + 1)}
          / (hits.tf + ${sql.lit(k1)} * (${sql.lit(1 - b)} + ${sql.lit(b)} * hits.word_count / stats.avg_length))
        ORDER BY hits.term
      ) AS score
      FROM hits
      JOIN frequency ON frequency.term = hits.term
      CROSS JOIN stats
      GROUP BY hits.id
      ORDER BY score DESC, hits.id
      LIMIT ${limit}
    )
    SELECT c.seq AS chunk_seq, c.text, c.heading_path, c.page, c.start_offset, c.end_offset,
           c.document_id, d.name AS document_name, c.source_id, s.name AS source_name,
           CAST(scored.score AS double precision) AS score
    FROM scored
    JOIN knowledge_chunks c ON c.id = scored.id
    JOIN knowledge_documents d ON d.id = c.document_id
    JOIN knowledge_sources s ON s.id = c.source_id
    ORDER BY scored.score DESC, c.id
  `.execute(ctx.db);
  return result.rows.map(hitFromRow);
}

/**
 * SQLite: the query words become the index's own tokens (`sqliteQueryTokens`), and the fts5vocab
 * `instance` table lists each token's occurrences from its entry in the index; only those in chunks of the
 * searched sources are kept. FTS5's `bm25()` is not used: it counts N, avgdl and df over the whole table,
 * every user's documents included.
 */
async function searchSqlite(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  const tokens = await sqliteQueryTokens(ctx.db, query.terms);
  if (tokens.length === 0) return [];
  const sources = sql`IN (${sql.join([...query.source_ids])})`;
  return rankedHits(
    ctx,
    // Occurrences are summed per chunk before the join: one chunk lookup per chunk, not per occurrence.
    sql`occurrences AS MATERIALIZED (
      SELECT term, doc, sum(CASE col WHEN 'heading_path' THEN ${sql.lit(BM25.headingWeight)} ELSE 1 END) AS tf
      FROM knowledge_chunks_fts_instances
      WHERE term IN (${sql.join(tokens)})
      GROUP BY term, doc
    ),
    hits AS (
      SELECT o.term, o.doc AS id, c.word_count, o.tf
      FROM occurrences o
      JOIN knowledge_chunks c ON c.id = o.doc
      WHERE c.source_id ${sources}
    )`,
    sources,
    query.limit,
  );
}

/**
 * PostgreSQL: the query words become `english` lexemes (`to_tsvector`; stop words drop out), each matched
 * through the GIN index as a quoted tsquery lexeme (never parsed as tsquery syntax). Its weighted frequency
 * comes from `ts_rank_cd`, without normalisation: for a one-lexeme query every occurrence is a cover of its
 * own and adds its weight, so with heading (A) positions weighing 1 and body (B) ones 1/headingWeight, the
 * rank times headingWeight is the count, in C and several times faster than reading the tsvector's
 * positions through `unnest` (the storage contract checks the counts against the documented scores).
 */
async function searchPostgres(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  const { headingWeight } = BM25;
  // ts_rank_cd's weights of D, C, B, A positions (each at most 1); only A and B occur in `tsv`.
  const weights = `{1,1,${1 / headingWeight},1}`;
  const sources = sql`= ANY(CAST(${[...query.source_ids]} AS text[]))`;
  return rankedHits(
    ctx,
    sql`lexemes AS (
      SELECT DISTINCT lexeme AS term
      FROM unnest(CAST(${[...query.terms]} AS text[])) AS words(word),
           unnest(tsvector_to_array(to_tsvector('english', words.word))) AS lexeme
    ),
    queries AS (
      SELECT term, CAST(quote_literal(term) AS tsquery) AS query FROM lexemes
    ),
    hits AS (
      SELECT queries.term, c.id, c.word_count,
             round(${sql.lit(headingWeight)} * ts_rank_cd(${sql.lit(weights)}, c.tsv, queries.query, 0)) AS tf
      FROM queries
      JOIN knowledge_chunks c ON c.tsv @@ queries.query
      WHERE c.source_id ${sources}
    )`,
    sources,
    query.limit,
  );
}

/** Full-text search over the chunks of `query.source_ids`, best first, ranked from those chunks alone. */
export function searchKnowledgeChunks(ctx: SqlContext, query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
  return ctx.dialect.name === 'sqlite' ? searchSqlite(ctx, query) : searchPostgres(ctx, query);
}
