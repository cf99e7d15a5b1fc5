import { useState, type FormEvent } from 'react';
import type { KnowledgeSearchResponse, KnowledgeSource } from '../../api/types.ts';
import { useSession } from '../../hooks/use-session.ts';
import { citation } from '../../lib/knowledge.ts';
import { ErrorMessage } from '../common/error-message.tsx';

/** Try a search: the same ranking and citations the `knowledge_search` tool gives an agent. */
export function KnowledgeSearchPanel({ source }: { source: KnowledgeSource }) {
  const { api } = useSession();
  const [query, setQuery] = useState('');
  const [topK, setTopK] = useState(5);
  const [result, setResult] = useState<KnowledgeSearchResponse | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const search = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setResult(await api.searchKnowledge(source.id, query, topK));
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="knowledge-search" aria-labelledby="knowledge-search-title">
      <h3 id="knowledge-search-title">Try a search</h3>
      <form className="inline-form" onSubmit={(event) => void search(event)} aria-label="Search the source">
        <label htmlFor="knowledge-query">Query</label>
        <input
          id="knowledge-query"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          maxLength={2000}
          required
        />
        <label htmlFor="knowledge-top-k">Passages</label>
        <select id="knowledge-top-k" value={topK} onChange={(event) => setTopK(Number(event.target.value))}>
          {[1, 3, 5, 10, 20].map((count) => (
            <option key={count} value={count}>
              {count}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={busy || query.trim() === ''}>
          Search
        </button>
      </form>
      <ErrorMessage error={error} context="Search failed" />
      {result ? (
        result.results.length === 0 ? (
          <p className="empty" role="status">
            No passage matches
            {result.terms.length > 0
              ? ` ${result.terms.join(', ')}`
              : ': the query has no words to search for'}
            .
          </p>
        ) : (
          <ol className="knowledge-results" aria-label="Search results">
            {result.results.map((hit) => (
              <li key={`${hit.document_id}:${hit.chunk_seq}`}>
                <div>
                  <strong>{citation(hit)}</strong>{' '}
                  <span className="muted">
                    chars {hit.location.start}–{hit.location.end} · score {hit.score.toFixed(2)}
                  </span>
                </div>
                <pre className="knowledge-passage">{hit.text}</pre>
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  );
}
