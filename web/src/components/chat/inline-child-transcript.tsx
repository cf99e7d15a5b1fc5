import { isTerminalStatus } from '../../api/types.ts';
import { useLiveThread } from '../../hooks/use-live-thread.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { ChatTranscript } from './chat-transcript.tsx';
import { EMPTY_TRANSCRIPT_CONTEXT, TranscriptContext } from './transcript-context.ts';

/** A child's transcript inside the parent's, live while the child runs. */
export function InlineChildTranscript({ entry, label }: { entry: PanelEntry; label: string }) {
  const active = !isTerminalStatus(entry.status);
  const thread = useLiveThread(entry.child_conversation_id, entry.run_id, active);
  return (
    // The parent's context does not describe the child's thread.
    <TranscriptContext.Provider value={EMPTY_TRANSCRIPT_CONTEXT}>
      <ErrorMessage error={thread.error} context="Could not load the child transcript" />
      <ChatTranscript
        turns={thread.turns}
        activeRunId={thread.view && !thread.view.end ? entry.run_id : null}
        label={`${label} transcript`}
        userLabel="Task"
      />
    </TranscriptContext.Provider>
  );
}
