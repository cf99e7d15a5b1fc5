/** The knowledge suite's tables. */
import { formatNumber, formatTable } from './table.js';
import type { Summary } from './stats.js';

export interface KnowledgeResult {
  corpus: { documents: number; chunks: number; bytes: number };
  indexing: { wall_s: number; chunks_per_s: number; mib_per_s: number };
  search: {
    queries: number;
    top_k: number;
    knowledge_search_tool_ms: Summary;
    knowledge_search_tool_cpu_ms: Summary;
    index_query_ms: Summary;
  };
  bomb_upload?: {
    bomb_inflated_mib: number;
    upload_status: number;
    upload_ms: number;
    me_idle_ms: Summary;
    me_during_bomb_ms: Summary;
    peak_rss_growth_mib: number;
  };
}

export function printKnowledge(result: KnowledgeResult): void {
  const { corpus, indexing, search, bomb_upload: bomb } = result;
  console.log(
    `\nKnowledge: ${formatNumber(corpus.chunks)} chunks from ${corpus.documents} Markdown documents (${formatNumber(corpus.bytes / 1024 / 1024)} MiB), SQLite FTS5`,
  );
  console.log(
    formatTable(
      ['metric', 'value'],
      [
        ['indexing throughput (chunks/s)', indexing.chunks_per_s],
        ['indexing wall (s)', indexing.wall_s],
        [`knowledge_search median (ms, top_k ${search.top_k})`, search.knowledge_search_tool_ms.median],
        ['knowledge_search p99 (ms)', search.knowledge_search_tool_ms.p99],
        ['knowledge_search CPU median (ms)', search.knowledge_search_tool_cpu_ms.median],
        ['index query alone median (ms)', search.index_query_ms.median],
        ['index query alone p99 (ms)', search.index_query_ms.p99],
        ...(bomb
          ? [
              ['GET /api/me p99, idle (ms)', bomb.me_idle_ms.p99],
              [
                `GET /api/me p99, during a ${bomb.bomb_inflated_mib} MiB PDF bomb (ms)`,
                bomb.me_during_bomb_ms.p99,
              ],
              [`bomb refused (HTTP ${bomb.upload_status}) after (ms)`, bomb.upload_ms],
              ['peak RSS growth during the bomb (MiB)', bomb.peak_rss_growth_mib],
            ]
          : []),
      ],
    ),
  );
}
