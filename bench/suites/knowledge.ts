/**
 * Knowledge sources: indexing throughput and `knowledge_search` latency on a generated corpus of 10,000
 * chunks (1,000 with --quick), through the real composition in embedded mode (SQLite + FTS5).
 *
 * - Indexing: Markdown documents go through `knowledge.addDocuments` (text decoding, chunking, one
 *   transaction per upload of 20 files, FTS5 triggers), timed end to end.
 * - Search: the `knowledge_search` tool as an agent calls it (access check of the run's user, BM25 search
 *   with statistics from the searched source only, formatting of the passages), and the bare index query
 *   underneath, on 3-word queries drawn from the corpus vocabulary.
 * - A decompression bomb: `GET /api/me` latency of one user while another uploads a PDF inflating to
 *   512 MiB, over real HTTP (`measureBombUpload`).
 */
import { DEFAULT_CHUNK_CHARS } from '../../src/core/knowledge/chunk-text.js';
import { parseSearchTerms } from '../../src/core/knowledge/parse-search-terms.js';
import { createKnowledgeSearchTool } from '../../src/runtime/knowledge/knowledge-search-tool.js';
import type { UploadedFile } from '../../src/runtime/knowledge/prepare-knowledge-upload.js';
import { measureBombUpload } from '../lib/bomb-upload-probe.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { round, roundSummary, summarize } from '../lib/stats.js';
import { collectGarbage, progress, runSuite } from '../lib/suite.js';

const SUITE = 'knowledge';
const SECTIONS_PER_DOCUMENT = 50;
const FILES_PER_UPLOAD = 20;
const TOP_K = 5;

/** Deterministic pseudo-random numbers (mulberry32), so every run indexes the same corpus. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'te',
  'su',
  'no',
  'vi',
  'pe',
  'do',
  'ze',
  'gu',
  'ha',
  'bri',
  'sto',
  'quen',
];

/** A vocabulary of made-up words; draws follow a Zipf-like law, as words of real text do. */
function vocabulary(size: number, next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

function zipf(words: readonly string[], next: () => number): string {
  // Inverse-CDF of a 1/rank law, approximately: rank = size^u.
  const rank = Math.floor(Math.pow(words.length, next())) - 1;
  return words[Math.min(words.length - 1, Math.max(0, rank))] ?? 'word';
}

/** One Markdown document of SECTIONS_PER_DOCUMENT sections, each about 80% of a chunk: one chunk per section. */
function document(index: number, words: readonly string[], next: () => number): string {
  const lines = [`# Document ${index}`, ''];
  for (let section = 0; section < SECTIONS_PER_DOCUMENT; section += 1) {
    lines.push(`## ${zipf(words, next)} ${zipf(words, next)} ${section}`, '');
    let paragraph = '';
    while (paragraph.length < DEFAULT_CHUNK_CHARS * 0.8) {
      const sentence = Array.from({ length: 8 + Math.floor(next() * 8) }, () => zipf(words, next)).join(' ');
      paragraph += `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. `;
    }
    lines.push(paragraph.trim(), '');
  }
  return lines.join('\n');
}

await runSuite(SUITE, async ({ quick }) => {
  const targetChunks = quick ? 1_000 : 10_000;
  const documents = Math.ceil(targetChunks / SECTIONS_PER_DOCUMENT);
  const samples = quick ? 100 : 1_000;
  const next = random(13);
  const words = vocabulary(5_000, next);
  const env = await startEmbeddedTroupe({ scenarios: {} });
  try {
    const { knowledge } = env.troupe;
    const source = await knowledge.create(env.user, { name: 'bench-corpus' });
    const files: UploadedFile[] = Array.from({ length: documents }, (_, index) => ({
      name: `doc-${index}.md`,
      bytes: new TextEncoder().encode(document(index, words, next)),
    }));
    const bytes = files.reduce((total, file) => total + file.bytes.byteLength, 0);

    collectGarbage();
    progress(SUITE, `indexing ${documents} documents (${(bytes / 1024 / 1024).toFixed(1)} MiB)…`);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let from = 0; from < files.length; from += FILES_PER_UPLOAD) {
      await knowledge.addDocuments(env.user, source.id, files.slice(from, from + FILES_PER_UPLOAD));
    }
    const indexingMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const stored = await knowledge.get(env.user, source.id);
    progress(SUITE, `${stored.chunk_count} chunks in ${(indexingMs / 1000).toFixed(1)} s`);

    const queries = Array.from(
      { length: samples + 50 },
      () => `${zipf(words, next)} ${zipf(words, next)} ${zipf(words, next)}`,
    );
    const tool = createKnowledgeSearchTool({ service: knowledge, user: env.user, refs: ['bench-corpus'] });
    const context = {} as Parameters<typeof tool.execute>[1];
    const toolMs: number[] = [];
    const toolCpuMs: number[] = [];
    const indexMs: number[] = [];
    let passages = 0;
    collectGarbage();
    progress(SUITE, `${samples} searches through the tool and the bare index…`);
    for (const [index, query] of queries.entries()) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const output = await tool.execute({ query, top_k: TOP_K }, context);
      const t1 = performance.now();
      const used = process.cpuUsage(cpu0);
      const hits = await env.troupe.storage.knowledgeDocuments.search({
        source_ids: [source.id],
        terms: parseSearchTerms(query),
        limit: TOP_K,
      });
      const t2 = performance.now();
      // The first 50 warm the statement cache and the page cache.
      if (index < 50) continue;
      toolMs.push(t1 - t0);
      // CPU time moves far less than wall time with the machine's other load.
      toolCpuMs.push((used.user + used.system) / 1000);
      indexMs.push(t2 - t1);
      passages += hits.length;
      if (typeof output !== 'string' || output.length === 0)
        throw new Error('knowledge_search returned nothing');
    }

    collectGarbage();
    progress(SUITE, 'GET /api/me of one user while another uploads a PDF bomb…');
    const bombUpload = await measureBombUpload(env.troupe, quick ? 20 : 200);
    if (bombUpload.upload_code !== 'document_too_large')
      throw new Error(`the bomb upload answered ${bombUpload.upload_status} ${bombUpload.upload_code}`);

    return {
      engine:
        'SQLite FTS5 (embedded mode), porter + unicode61 tokenizer, BM25 over the searched sources (fts5vocab)',
      corpus: {
        documents,
        chunks: stored.chunk_count,
        bytes,
        vocabulary: words.length,
        chunk_chars_max: DEFAULT_CHUNK_CHARS,
      },
      indexing: {
        wall_s: round(indexingMs / 1000),
        cpu_s: round((cpu.user + cpu.system) / 1e6),
        chunks_per_s: round(stored.chunk_count / (indexingMs / 1000)),
        mib_per_s: round(bytes / 1024 / 1024 / (indexingMs / 1000)),
        files_per_upload: FILES_PER_UPLOAD,
      },
      search: {
        queries: toolMs.length,
        terms_per_query: 3,
        top_k: TOP_K,
        mean_passages: round(passages / indexMs.length),
        knowledge_search_tool_ms: roundSummary(summarize(toolMs)),
        knowledge_search_tool_cpu_ms: roundSummary(summarize(toolCpuMs)),
        index_query_ms: roundSummary(summarize(indexMs)),
      },
      bomb_upload: bombUpload,
    };
  } finally {
    await env.close();
  }
});
