import { useId, useState } from 'react';
import type { ArtifactView } from '../../api/types.ts';
import { useSession } from '../../hooks/use-session.ts';
import { formatBytes, saveBlob } from '../../lib/save-blob.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { MarkdownText } from '../common/markdown-text.tsx';

/** Previews are for reading a short document, not for loading a large file into the page. */
const PREVIEW_MAX_BYTES = 256 * 1024;

function isMarkdown(artifact: ArtifactView): boolean {
  return /\.(md|markdown)$/i.test(artifact.path) || artifact.content_type.startsWith('text/markdown');
}

/**
 * One file the agent presented: its title, path and size, a Download button, and for Markdown a preview
 * rendered like the agent's answers (raw HTML never rendered). The file is fetched with the bearer token:
 * a plain link could not send it.
 */
export function ArtifactCard({
  conversationId,
  artifact,
}: {
  conversationId: string;
  artifact: ArtifactView;
}) {
  const { api } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [preview, setPreview] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const previewId = useId();
  const name = artifact.title ?? artifact.path;
  const fileName = artifact.path.split('/').at(-1) ?? 'artifact';
  const previewable = isMarkdown(artifact) && artifact.size <= PREVIEW_MAX_BYTES;

  const fetchFile = async (): Promise<Blob | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await api.downloadArtifact(conversationId, artifact.id);
    } catch (thrown) {
      setError(thrown);
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  const download = async () => {
    const blob = await fetchFile();
    if (blob) saveBlob(blob, fileName);
  };

  const togglePreview = async () => {
    if (open) {
      setOpen(false);
      return;
    }
    if (preview === null) {
      const blob = await fetchFile();
      if (!blob) return;
      setPreview(await blob.text());
    }
    setOpen(true);
  };

  return (
    <article className="artifact-card" aria-label={`File ${name}`} data-artifact-id={artifact.id}>
      <div className="artifact-line">
        <span className="artifact-glyph" aria-hidden="true">
          ▤
        </span>
        <div className="artifact-text">
          <span className="artifact-title">{name}</span>
          <span className="muted small">
            <code>{artifact.path}</code> · {formatBytes(artifact.size)}
          </span>
        </div>
        <div className="artifact-actions">
          {previewable ? (
            <button
              type="button"
              className="link-button"
              aria-expanded={open}
              aria-controls={previewId}
              disabled={busy}
              onClick={() => void togglePreview()}
            >
              {open ? 'Hide preview' : 'Preview'}
              <span className="visually-hidden"> {name}</span>
            </button>
          ) : null}
          <button
            type="button"
            className="link-button"
            disabled={busy}
            aria-label={`Download ${name}`}
            onClick={() => void download()}
          >
            Download
          </button>
        </div>
      </div>
      <ErrorMessage error={error} context="Could not fetch the file" />
      {open && preview !== null ? (
        <div id={previewId} className="artifact-preview" tabIndex={0} aria-label={`Preview of ${name}`}>
          <MarkdownText text={preview} />
        </div>
      ) : null}
    </article>
  );
}
