import { useState } from 'react';
import type { ArtifactView } from '../../api/types.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatBytes, saveBlob } from '../../lib/save-blob.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ArtifactsPanelProps {
  conversationId: string;
  artifacts: readonly ArtifactView[];
  error: unknown;
}

/** Files the agent presented in this conversation (`present_artifacts`), newest first, each downloadable. */
export function ArtifactsPanel({ conversationId, artifacts, error }: ArtifactsPanelProps) {
  const { api } = useSession();
  const [downloadError, setDownloadError] = useState<unknown>(undefined);
  const [busyId, setBusyId] = useState<string | null>(null);

  const download = async (artifact: ArtifactView) => {
    setBusyId(artifact.id);
    setDownloadError(undefined);
    try {
      const blob = await api.downloadArtifact(conversationId, artifact.id);
      saveBlob(blob, artifact.path.split('/').at(-1) ?? 'artifact');
    } catch (thrown) {
      setDownloadError(thrown);
    } finally {
      setBusyId(null);
    }
  };

  return (
    // Focusable: the panel scrolls on its own, and keyboard users must be able to scroll it (axe).
    <section className="artifacts-panel" aria-label="Artifacts" tabIndex={0}>
      <header>
        <h2>
          Artifacts <span className="count">{artifacts.length}</span>
        </h2>
      </header>
      <ErrorMessage error={error} context="Could not load artifacts" />
      <ErrorMessage error={downloadError} context="Download failed" />
      {artifacts.length === 0 ? (
        <p className="empty">No artifacts yet. Files the agent presents appear here.</p>
      ) : (
        <ul className="artifact-list" aria-label="Artifact files">
          {[...artifacts].reverse().map((artifact) => (
            <li key={artifact.id} className="artifact" data-artifact-id={artifact.id}>
              <div className="artifact-text">
                <span className="artifact-title">{artifact.title ?? artifact.path}</span>
                <span className="muted small">
                  <code>{artifact.path}</code> · {formatBytes(artifact.size)}
                </span>
              </div>
              <button
                type="button"
                className="link-button"
                disabled={busyId === artifact.id}
                aria-label={`Download ${artifact.title ?? artifact.path}`}
                onClick={() => void download(artifact)}
              >
                Download
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
