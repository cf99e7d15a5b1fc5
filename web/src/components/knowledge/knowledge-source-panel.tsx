import { useState, type FormEvent } from 'react';
import type { AddedKnowledgeDocument, KnowledgeDocument, KnowledgeSource } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatTime } from '../../lib/format.ts';
import { KNOWLEDGE_FILE_ACCEPT } from '../../lib/knowledge.ts';
import { formatBytes } from '../../lib/save-blob.ts';
import { ConfirmDialog } from '../common/confirm-dialog.tsx';
import { DataTable } from '../common/data-table.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { KnowledgeSearchPanel } from './knowledge-search-panel.tsx';
import { canManage } from '../../lib/user-rights.ts';

export interface KnowledgeSourcePanelProps {
  source: KnowledgeSource;
  /** Documents were added or removed: the list's counts are stale. */
  onChanged: () => void;
  onDeleted: () => void;
}

/** One source: upload, documents, delete, and a search to try it. Changing it is for its owner and admins. */
export function KnowledgeSourcePanel({ source, onChanged, onDeleted }: KnowledgeSourcePanelProps) {
  const { api, user } = useSession();
  const mayManage = canManage(user, source.owner_id);
  const documents = useAsync((signal) => api.listKnowledgeDocuments(source.id, signal), [api, source.id]);
  const [files, setFiles] = useState<File[]>([]);
  const [added, setAdded] = useState<AddedKnowledgeDocument[] | null>(null);
  const [removing, setRemoving] = useState<KnowledgeDocument | null>(null);
  const [deletingSource, setDeletingSource] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  const upload = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    void act(async () => {
      setAdded(await api.uploadKnowledgeDocuments(source.id, files));
      setFiles([]);
      form.reset();
      documents.reload();
      onChanged();
    });
  };

  return (
    <section className="settings-section knowledge-source" aria-labelledby="source-title">
      <div className="page-title">
        <h2 id="source-title">
          <code>{source.name}</code> <span className="muted">({source.visibility})</span>
        </h2>
        {mayManage ? (
          <button type="button" className="danger" onClick={() => setDeletingSource(true)}>
            Delete source
          </button>
        ) : null}
      </div>
      {source.description ? <p>{source.description}</p> : null}
      {mayManage ? (
        <form className="inline-form" onSubmit={upload} aria-label="Upload documents">
          <label htmlFor="knowledge-files">Files to upload</label>
          <input
            id="knowledge-files"
            type="file"
            multiple
            accept={KNOWLEDGE_FILE_ACCEPT}
            onChange={(event) => setFiles([...(event.target.files ?? [])])}
          />
          <button type="submit" className="primary" disabled={busy || files.length === 0}>
            {busy ? 'Uploading…' : 'Upload'}
          </button>
        </form>
      ) : (
        <p className="muted">You can search this source; only its owner or an admin can change it.</p>
      )}
      {added ? (
        <p role="status">
          {added
            .map(
              ({ document, replaced }) =>
                `${replaced ? 'Replaced' : 'Added'} ${document.name} (${document.chunk_count} passages)`,
            )
            .join('; ')}
          .
        </p>
      ) : null}
      <ErrorMessage error={error ?? documents.error} />
      <DataTable
        label="Documents"
        rows={documents.data ?? []}
        rowKey={(document) => document.id}
        columns={[
          { header: 'Document', cell: (document) => document.name },
          { header: 'Type', cell: (document) => document.media_type },
          { header: 'Size', cell: (document) => formatBytes(document.bytes) },
          { header: 'Pages', cell: (document) => document.page_count ?? '—' },
          { header: 'Passages', cell: (document) => document.chunk_count },
          { header: 'Added', cell: (document) => formatTime(document.created_at) },
          {
            header: 'Actions',
            actions: true,
            cell: (document) =>
              mayManage ? (
                <button
                  type="button"
                  className="danger small"
                  onClick={() => setRemoving(document)}
                  aria-label={`Delete ${document.name}`}
                >
                  Delete
                </button>
              ) : null,
          },
        ]}
      />
      {documents.data?.length === 0 ? <p className="empty">No documents yet.</p> : null}
      <KnowledgeSearchPanel source={source} />
      {removing ? (
        <ConfirmDialog
          title={`Delete ${removing.name}?`}
          message="Its passages leave the index at once; agents no longer find them."
          confirmLabel="Delete"
          busy={busy}
          onConfirm={() =>
            void act(async () => {
              await api.deleteKnowledgeDocument(source.id, removing.id);
              setRemoving(null);
              documents.reload();
              onChanged();
            })
          }
          onCancel={() => setRemoving(null)}
        />
      ) : null}
      {deletingSource ? (
        <ConfirmDialog
          title={`Delete ${source.name}?`}
          message="Every document and passage goes with it. Agents that list it get a build-report warning and no results."
          confirmLabel="Delete source"
          busy={busy}
          onConfirm={() =>
            void act(async () => {
              await api.deleteKnowledge(source.id);
              setDeletingSource(false);
              onDeleted();
            })
          }
          onCancel={() => setDeletingSource(false)}
        />
      ) : null}
    </section>
  );
}
