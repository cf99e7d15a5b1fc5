import type { ToolItem } from '../../lib/transcript-items.ts';
import { ArtifactCard } from './artifact-card.tsx';
import { useTranscriptContext } from './transcript-context.ts';

function presentedPaths(args: unknown): string[] {
  const list = (args as { artifacts?: unknown } | null)?.artifacts;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry) => {
    const path = (entry as { path?: unknown } | null)?.path;
    return typeof path === 'string' ? [path.replace(/^\.\//, '')] : [];
  });
}

/**
 * `present_artifacts` where it happened in the answer: a card per presented file (download, Markdown
 * preview), matched by path among the conversation's artifacts; the list beside the transcript has them too.
 */
export function ArtifactsCallCard({ item }: { item: ToolItem }) {
  const { artifacts, conversationId } = useTranscriptContext();
  const paths = presentedPaths(item.args);
  const shown = paths.flatMap((path) => {
    const found = artifacts.filter((artifact) => artifact.path === path);
    return found.length > 0 ? [found.at(-1) as (typeof found)[number]] : [];
  });
  return (
    <div className="artifacts-call" role="group" aria-label="Presented files" data-tool={item.name}>
      {shown.length === 0 || conversationId === null ? (
        <p className="muted small">
          Presented {paths.length} file{paths.length === 1 ? '' : 's'}: {paths.join(', ')}
        </p>
      ) : (
        <ul className="transcript-artifacts">
          {shown.map((artifact) => (
            <li key={artifact.id}>
              <ArtifactCard conversationId={conversationId} artifact={artifact} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
