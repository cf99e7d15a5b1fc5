import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ArtifactView, Conversation, Run, RunEvent, StartedRun } from '../../api/types.ts';
import { isTerminalStatus } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useLiveRunFigures } from '../../hooks/use-live-run-figures.ts';
import { useRunStream } from '../../hooks/use-run-stream.ts';
import { useSession } from '../../hooks/use-session.ts';
import { useSubagentRuns } from '../../hooks/use-subagent-runs.ts';
import { buildTranscript } from '../../lib/build-transcript.ts';
import { verdictFromEvent } from '../../lib/verdict.ts';
import type { LiveRun } from '../../lib/live-run.ts';
import { liveRunStatus, waitingForUser } from '../../lib/conversation-phase.ts';
import { isWaitingToResume, workerLostOf } from '../../lib/run-phase.ts';
import { AppLink } from '../common/app-link.tsx';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { HumanInputPrompts } from './human-input-prompts.tsx';
import { ChatTranscript } from './chat-transcript.tsx';
import { Composer } from './composer.tsx';
import { ConversationHeader } from './conversation-header.tsx';
import { SidePanels } from './side-panels.tsx';
import { TranscriptContext } from './transcript-context.ts';
import { useConversationTranscriptContext } from './use-conversation-transcript-context.ts';

export interface ConversationViewProps {
  conversationId: string;
  onChanged: () => void;
  /** The conversation was archived from its header: the page offers to undo it. */
  onArchived: (conversation: Conversation) => void;
}

/** Wide screens get the keyboard in the composer at once; on a phone that would pop the keyboard up. */
const wideScreen = () => typeof window !== 'undefined' && window.matchMedia('(min-width: 700px)').matches;

/**
 * One conversation: persisted messages, the active run streamed live (resumed after a reload from the seq
 * kept in sessionStorage), approvals, cancel, and the status panel fed by the same stream.
 */
export function ConversationView({ conversationId, onChanged, onArchived }: ConversationViewProps) {
  const { api } = useSession();
  // Each read takes what index.html has already received, if it has: the transcript in the first render.
  const conversation = useAsync(
    (signal) => api.getConversation(conversationId, signal),
    [api, conversationId],
    () => api.ready.conversation(conversationId),
  );
  const messages = useAsync(
    (signal) => api.listMessages(conversationId, signal),
    [api, conversationId],
    () => api.ready.messages(conversationId),
  );
  const runs = useAsync(
    (signal) => api.listConversationRuns(conversationId, signal),
    [api, conversationId],
    () => api.ready.runs(conversationId),
  );
  const agentId = conversation.data?.agent_id;
  const agent = useAsync(
    (_signal) => (agentId === undefined ? Promise.resolve(null) : api.getAgent(agentId).catch(() => null)),
    [api, agentId],
    () => (agentId === undefined ? undefined : api.ready.agent(agentId)),
  );
  const panel = useSubagentRuns(conversationId);
  const artifacts = useAsync((signal) => api.listArtifacts(conversationId, signal), [api, conversationId]);
  const setArtifacts = artifacts.setData;
  const reloadArtifacts = artifacts.reload;

  const [activeRunId, setActiveRunId] = useState<string | null>(null);
  const [ended, setEnded] = useState<ReadonlyMap<string, LiveRun>>(new Map());
  const [liveInputs, setLiveInputs] = useState<ReadonlyMap<string, string>>(new Map());
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [cancelling, setCancelling] = useState(false);
  const resumed = useRef(false);
  const composerInput = useRef<HTMLTextAreaElement>(null);
  const [focusComposer] = useState(wideScreen);

  // After a reload: the newest run that is still active is followed again, from where this tab left it.
  useEffect(() => {
    if (resumed.current || runs.data === undefined) return;
    resumed.current = true;
    const active = runs.data.find((run) => !isTerminalStatus(run.status));
    if (active) setActiveRunId(active.id);
  }, [runs.data]);

  const reloadRunList = runs.reload;
  // Usage and a lost worker are the server's figures: read again when they may have moved.
  const onFigures = useLiveRunFigures(runs.data, reloadRunList);
  const onEvent = useCallback(
    (event: RunEvent) => {
      onFigures(event);
      if (event.type === 'subagent_update') {
        panel.applyUpdate(event.payload, event.run_id);
      }
      if (event.type === 'verification')
        panel.applyVerdict(event.payload.run_id, verdictFromEvent(event.payload));
      // A worker (re)started the run: its stored status moved on from "waiting to be resumed".
      if (event.type === 'metadata') reloadRunList();
      if (event.type === 'artifact') {
        const artifact = event.payload.artifact as ArtifactView | undefined;
        if (artifact?.id) {
          setArtifacts((current) =>
            (current ?? []).some((known) => known.id === artifact.id)
              ? current
              : [...(current ?? []), artifact],
          );
        }
      }
    },
    [panel, reloadRunList, setArtifacts, onFigures],
  );

  const onEnd = useCallback(
    (view: LiveRun) => {
      void (async () => {
        const [freshMessages, freshRuns] = await Promise.all([
          api.listMessages(conversationId).catch(() => undefined),
          api.listConversationRuns(conversationId).catch(() => undefined),
        ]);
        if (freshMessages) messages.setData(() => freshMessages);
        if (freshRuns) runs.setData(() => freshRuns);
        // A completed run is fully persisted; one that stopped early keeps its partial stream on screen.
        if (view.end?.status !== 'completed' || !freshMessages)
          setEnded((current) => new Map(current).set(view.runId, view));
        setActiveRunId((current) => (current === view.runId ? null : current));
        setCancelling(false);
        panel.reload();
        reloadArtifacts();
        onChanged();
      })();
    },
    [api, conversationId, messages, runs, panel, onChanged, reloadArtifacts],
  );

  // Updates before the resume point are not sent again: the saved view carries the latest one per child.
  const onRestore = useCallback(
    (view: LiveRun) => {
      for (const update of Object.values(view.subagents)) panel.applyUpdate(update, view.runId);
      for (const [runId, verdict] of Object.entries(view.verdicts ?? {})) panel.applyVerdict(runId, verdict);
    },
    [panel],
  );

  const stream = useRunStream(activeRunId, { onEvent, onEnd, onRestore });

  // A lost stream may mean the server restarted: re-read the runs, a run it handed back says so.
  useEffect(() => {
    if (stream.state === 'reconnecting') reloadRunList();
  }, [stream.state, reloadRunList]);

  const liveRuns = useMemo(() => {
    const map = new Map(ended);
    if (stream.view?.runId === activeRunId && stream.view) map.set(stream.view.runId, stream.view);
    return map;
  }, [ended, stream.view, activeRunId]);

  const turns = useMemo(
    () => buildTranscript({ messages: messages.data ?? [], liveRuns, runs: runs.data, liveInputs }),
    [messages.data, liveRuns, runs.data, liveInputs],
  );

  const send = async (content: string, requestId: string, attachmentIds: string[]): Promise<void> => {
    setActionError(undefined);
    const started: StartedRun = await api.postMessage(conversationId, content, requestId, attachmentIds);
    const run = started.run;
    setLiveInputs((current) => new Map(current).set(run.id, content));
    runs.setData((current) => [run, ...(current ?? []).filter((item: Run) => item.id !== run.id)]);
    if (!isTerminalStatus(run.status)) setActiveRunId(run.id);
    messages.reload();
    // The server names an untitled conversation after its first message.
    if ((messages.data ?? []).length === 0) {
      conversation.reload();
      onChanged();
    }
  };

  const cancel = async () => {
    if (activeRunId === null) return;
    setCancelling(true);
    setActionError(undefined);
    try {
      const run = await api.cancelRun(activeRunId);
      if (isTerminalStatus(run.status)) setCancelling(false);
    } catch (thrown) {
      setCancelling(false);
      setActionError(thrown);
    }
  };

  const setStatus = async (status: 'active' | 'archived') => {
    setActionError(undefined);
    try {
      const updated = await api.patchConversation(conversationId, { status });
      conversation.setData(() => updated);
      onChanged();
      if (status === 'archived') onArchived(updated);
    } catch (thrown) {
      setActionError(thrown);
    }
  };

  const latestRun = runs.data?.[0] ?? null;
  const forkRun = runs.data?.find((run) => run.forked_from !== null) ?? null;
  const activeRun = runs.data?.find((run) => run.id === activeRunId) ?? null;
  const resuming = activeRun !== null && !stream.view?.end && isWaitingToResume(activeRun);
  const liveStatus = liveRunStatus({ activeRunId, view: stream.view, activeRun, cancelling, resuming });
  const isChild = conversation.data !== undefined && conversation.data.status !== 'active';
  const waitingFor = waitingForUser(activeRunId, stream.view);
  // After a decision or an answer the run goes on: the keyboard goes back to the composer.
  const backToComposer = () => composerInput.current?.focus();

  const transcriptContext = useConversationTranscriptContext({
    conversationId,
    turns,
    runs: runs.data,
    activeRunId,
    liveStatus,
    children: panel.entries,
    approvals: stream.view?.approvals,
    artifacts: artifacts.data,
    readOnly: isChild,
    send,
  });

  return (
    <>
      <section className="conversation" aria-label="Conversation">
        <ConversationHeader
          conversation={conversation.data ?? null}
          agent={agent.data ?? null}
          model={stream.view?.model ?? null}
          latestRun={latestRun}
          liveStatus={liveStatus}
          resuming={resuming}
          workerLost={activeRun !== null && !stream.view?.end ? workerLostOf(activeRun) : null}
          streamState={stream.state}
          waitingFor={waitingFor}
          onArchive={() => void setStatus('archived')}
          onRestore={() => void setStatus('active')}
        />
        {forkRun?.forked_from ? (
          <p className="notice fork-notice" role="note">
            A fork of <AppLink to={paths.trace(forkRun.forked_from.run_id)}>another run</AppLink>, after its
            step {forkRun.forked_from.step}.{' '}
            <AppLink to={paths.compare(forkRun.forked_from.run_id, forkRun.id)}>Compare with source</AppLink>
          </p>
        ) : null}
        <ErrorMessage
          error={conversation.error ?? messages.error}
          context="Could not load the conversation"
        />
        <TranscriptContext.Provider value={transcriptContext}>
          {/* No typing cursor while the run waits for the user: the agent is not writing. */}
          <ChatTranscript turns={turns} activeRunId={waitingFor ? null : activeRunId} />
        </TranscriptContext.Provider>
        <HumanInputPrompts runId={activeRunId} stream={stream} onDone={backToComposer} />
        <ErrorMessage error={stream.fatal} context="Live stream stopped" />
        <ErrorMessage error={actionError} />
        <Composer
          key={conversationId}
          disabled={isChild}
          disabledReason={
            isChild
              ? conversation.data?.status === 'archived'
                ? 'This conversation is archived: restore it to continue.'
                : `This conversation is ${conversation.data?.status ?? ''}; it takes no new messages.`
              : null
          }
          running={activeRunId !== null}
          runStatus={liveStatus}
          waitingFor={waitingFor}
          cancelling={cancelling}
          onSend={send}
          onCancel={() => void cancel()}
          onAttach={(files) => api.uploadAttachments(conversationId, files)}
          autoFocus={focusComposer}
          inputRef={composerInput}
        />
      </section>
      <SidePanels
        conversationId={conversationId}
        panel={panel}
        runs={runs.data}
        artifacts={artifacts.data ?? []}
        artifactsError={artifacts.error}
      />
    </>
  );
}
