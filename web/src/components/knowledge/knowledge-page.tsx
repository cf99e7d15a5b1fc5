import { useState, type FormEvent } from 'react';
import type { KnowledgeSource } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { KNOWLEDGE_NAME_PATTERN } from '../../lib/knowledge.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';
import { DataTable } from '../common/data-table.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { KnowledgeSourcePanel } from './knowledge-source-panel.tsx';

/** Knowledge sources: the ones I can read, a form to create one, and the selected source's documents and search. */
export function KnowledgePage({ sourceId }: { sourceId: string | null }) {
  const { api } = useSession();
  const sources = useAsync((signal) => api.listKnowledge(signal), [api]);
  const selected = sources.data?.find((source) => source.id === sourceId || source.name === sourceId) ?? null;

  return (
    <main className="page knowledge-page">
      <div className="page-title">
        <h1>Knowledge</h1>
      </div>
      <p className="help">
        A knowledge source is a named collection of documents (Markdown, text, HTML, PDF), indexed for
        full-text search. Agents and subagents list sources by name in their config; their{' '}
        <code>knowledge_search</code> tool searches them, only ever with the access of the user running them.
      </p>
      <CreateSourceForm
        onCreated={(source) => {
          sources.setData((current) =>
            [...(current ?? []), source].sort((a, b) => a.name.localeCompare(b.name)),
          );
          navigate(paths.knowledge(source.id));
        }}
      />
      <ErrorMessage error={sources.error} context="Could not load knowledge sources" />
      {sources.loading && !sources.data ? <p role="status">Loading knowledge sources…</p> : null}
      <DataTable
        label="Knowledge sources"
        rows={sources.data ?? []}
        rowKey={(source) => source.id}
        rowProps={(source) => ({ 'aria-current': source.id === selected?.id ? 'true' : undefined })}
        columns={[
          {
            header: 'Name',
            cell: (source) => (
              <AppLink to={paths.knowledge(source.id)}>
                <code>{source.name}</code>
              </AppLink>
            ),
          },
          { header: 'Description', cell: (source) => source.description },
          { header: 'Visibility', cell: (source) => source.visibility },
          { header: 'Documents', cell: (source) => source.document_count },
          { header: 'Passages', cell: (source) => source.chunk_count },
        ]}
      />
      {sources.data?.length === 0 ? <p className="empty">No knowledge source yet.</p> : null}
      {sourceId !== null && sources.data && selected === null ? (
        <p className="error-message" role="alert">
          Knowledge source <code>{sourceId}</code> does not exist or is not visible to you.
        </p>
      ) : null}
      {selected ? (
        <KnowledgeSourcePanel
          source={selected}
          onChanged={() => sources.reload()}
          onDeleted={() => {
            sources.setData((current) => current?.filter((source) => source.id !== selected.id));
            navigate(paths.knowledge());
          }}
        />
      ) : null}
    </main>
  );
}

function CreateSourceForm({ onCreated }: { onCreated: (source: KnowledgeSource) => void }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [visibility, setVisibility] = useState<KnowledgeSource['visibility']>('private');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onCreated(await api.createKnowledge({ name: name.trim(), description, visibility }));
      setName('');
      setDescription('');
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="new-source-title">
      <h2 id="new-source-title">New knowledge source</h2>
      <form
        className="inline-form"
        onSubmit={(event) => void submit(event)}
        aria-label="Create a knowledge source"
      >
        <label htmlFor="knowledge-name">Name</label>
        <input
          id="knowledge-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          pattern={KNOWLEDGE_NAME_PATTERN}
          placeholder="ops-handbook"
          required
        />
        <label htmlFor="knowledge-description">Description</label>
        <input
          id="knowledge-description"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          maxLength={4000}
        />
        <label htmlFor="knowledge-visibility">Visibility</label>
        <select
          id="knowledge-visibility"
          value={visibility}
          onChange={(event) => setVisibility(event.target.value as KnowledgeSource['visibility'])}
        >
          <option value="private">private</option>
          <option value="shared">shared</option>
          <option value="public">public</option>
        </select>
        <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
          Create
        </button>
      </form>
      <ErrorMessage error={error} context="Could not create the source" />
    </section>
  );
}
