import type { ArtifactView } from '../../api/types.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { ArtifactCard } from './artifact-card.tsx';

export interface ArtifactsPanelProps {
  conversationId: string;
  artifacts: readonly ArtifactView[];
  error: unknown;
  /** The element id the side panel's "Files" toggle controls. */
  id?: string;
  /** Below the three-column width the panel is a sheet: open or not, and how to close it. */
  sheetOpen?: boolean;
  onClose?: () => void;
}

/** Files the agent presented in this conversation (`present_artifacts`), newest first, each downloadable. */
export function ArtifactsPanel({
  conversationId,
  artifacts,
  error,
  id,
  sheetOpen = false,
  onClose,
}: ArtifactsPanelProps) {
  return (
    // Focusable: the panel scrolls on its own, and keyboard users must be able to scroll it (axe).
    <section
      id={id}
      className={`artifacts-panel side-sheet${sheetOpen ? ' sheet-open' : ''}`}
      aria-label="Artifacts"
      tabIndex={0}
    >
      <header>
        <h2>
          Artifacts <span className="count">{artifacts.length}</span>
        </h2>
        <button type="button" className="sheet-close small" onClick={onClose}>
          Close
        </button>
      </header>
      <ErrorMessage error={error} context="Could not load artifacts" />
      {artifacts.length === 0 ? (
        <p className="empty">No artifacts yet. Files the agent presents appear here.</p>
      ) : (
        <ul className="artifact-list" aria-label="Artifact files">
          {[...artifacts].reverse().map((artifact) => (
            <li key={artifact.id} className="artifact" data-artifact-id={artifact.id}>
              <ArtifactCard conversationId={conversationId} artifact={artifact} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
