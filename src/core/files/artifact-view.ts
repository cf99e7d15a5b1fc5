import type { Artifact } from '../records/artifact.js';
import type { RunEventBody } from '../records/run-event.js';

/** What the `artifact` event and the list route show of an artifact. */
export function artifactView(artifact: Artifact): RunEventBody<'artifact'>['artifact'] {
  return {
    id: artifact.id,
    conversation_id: artifact.conversation_id,
    run_id: artifact.run_id,
    path: artifact.path,
    title: artifact.title,
    size: artifact.size,
    content_type: artifact.content_type,
    created_at: artifact.created_at,
  };
}
