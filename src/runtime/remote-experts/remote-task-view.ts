import {
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import type { TokenUsage } from '../../core/records/run.js';
import { reportedEvidence, reportedUsage } from '../../core/remote-experts/delegation-context.js';

// In runtime, beside the A2A client that reads the stream, not in core: core holds no SDK type (docs/interoperability.md#remote-a2a-experts).

/** What a Troupe run knows of the remote A2A task it stands for, folded from the task's stream. */
export interface RemoteTaskView {
  taskId: string | undefined;
  contextId: string | undefined;
  state: TaskState;
  /** The text of the latest status message (progress, or why the task failed or needs input). */
  statusText: string;
  /** Artifact text by artifact id, in first-seen order; a streamed artifact replaces or extends its text. */
  artifacts: Map<string, string>;
  /** Artifact names by artifact id (the evidence names them). */
  artifactNames: Map<string, string>;
  /** Status messages with text and direct replies the task sent (evidence counts them). */
  messages: number;
  /** The evidence a remote Troupe reported once the task ended (unchecked until the run keeps it). */
  evidence: unknown;
  /** A direct reply: the remote answered with a message instead of a task. */
  reply: string | undefined;
  /** What the task used, when the remote (another Troupe) reports it: it counts in the delegating run. */
  usage: TokenUsage | undefined;
}

/** What one stream event changed, for the run's own events. */
export interface RemoteTaskChange {
  /** Newly streamed output text (appended to what was shown). */
  delta?: string;
  /** A new progress line from a status message. */
  progress?: string;
  /** The task's id became known with this event (the run records it to resume by it). */
  identified?: boolean;
}

export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** States where the remote waits for something a delegated task cannot give it (a human, credentials). */
export const WAITING_TASK_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

export function emptyRemoteTask(): RemoteTaskView {
  return {
    taskId: undefined,
    contextId: undefined,
    state: TaskState.TASK_STATE_UNSPECIFIED,
    statusText: '',
    artifacts: new Map(),
    artifactNames: new Map(),
    messages: 0,
    evidence: undefined,
    reply: undefined,
    usage: undefined,
  };
}

export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

function messageText(message: Message | undefined): string {
  return partsText(message?.parts);
}

function identify(view: RemoteTaskView, taskId: string, contextId: string, change: RemoteTaskChange): void {
  if (view.taskId !== undefined || taskId === '') return;
  view.taskId = taskId;
  view.contextId = contextId;
  change.identified = true;
}

function setStatus(view: RemoteTaskView, status: Task['status'], change: RemoteTaskChange): void {
  if (!status) return;
  view.state = status.state;
  const text = messageText(status.message);
  if (text !== '' && text !== view.statusText) {
    view.statusText = text;
    view.messages += 1;
    change.progress = text;
  }
}

function setArtifact(
  view: RemoteTaskView,
  artifact: Artifact,
  append: boolean,
  change: RemoteTaskChange,
): void {
  const text = partsText(artifact.parts);
  const before = view.artifacts.get(artifact.artifactId) ?? '';
  const after = append ? before + text : text;
  view.artifacts.set(artifact.artifactId, after);
  if (artifact.name !== '') view.artifactNames.set(artifact.artifactId, artifact.name);
  // Output shown so far stays; a replacement that extends it streams only the new tail.
  if (after.startsWith(before) && after.length > before.length) change.delta = after.slice(before.length);
  else if (!after.startsWith(before) && after !== '') change.delta = `\n\n${after}`;
}

/** Folds one stream event (or a `GetTask` snapshot wrapped as a `task` event) into the view. */
export function applyStreamEvent(view: RemoteTaskView, event: StreamResponse): RemoteTaskChange {
  const change: RemoteTaskChange = {};
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task': {
      const task = payload.value;
      view.usage = reportedUsage(task.metadata) ?? view.usage;
      view.evidence = reportedEvidence(task.metadata) ?? view.evidence;
      identify(view, task.id, task.contextId, change);
      setStatus(view, task.status, change);
      for (const artifact of task.artifacts) setArtifact(view, artifact, false, change);
      break;
    }
    case 'statusUpdate':
      view.usage = reportedUsage(payload.value.metadata) ?? view.usage;
      view.evidence = reportedEvidence(payload.value.metadata) ?? view.evidence;
      identify(view, payload.value.taskId, payload.value.contextId, change);
      setStatus(view, payload.value.status, change);
      break;
    case 'artifactUpdate':
      identify(view, payload.value.taskId, payload.value.contextId, change);
      if (payload.value.artifact) setArtifact(view, payload.value.artifact, payload.value.append, change);
      break;
    case 'message':
      view.reply = messageText(payload.value);
      view.messages += 1;
      view.state = TaskState.TASK_STATE_COMPLETED;
      view.contextId ??= payload.value.contextId || undefined;
      break;
    case undefined:
      break;
  }
  return change;
}

/** The remote task's answer: a direct reply, else its artifacts' text, else its last status message. */
export function remoteAnswer(view: RemoteTaskView): string {
  if (view.reply !== undefined) return view.reply;
  const artifacts = [...view.artifacts.values()].filter((text) => text !== '');
  return artifacts.length > 0 ? artifacts.join('\n\n') : view.statusText;
}

const STATE_WORDS: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'was cancelled by the remote agent',
  [TaskState.TASK_STATE_REJECTED]: 'was rejected',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'asked for input, which a delegated task cannot give',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'asked for authentication, which a delegated task cannot give',
};

/** Why a remote task that ended without an answer did not complete, in the words a parent reads. */
export function remoteFailureText(view: RemoteTaskView): string {
  const words = STATE_WORDS[view.state] ?? 'ended in an unknown state';
  const detail = view.statusText.trim();
  return `The remote expert's task ${words}${detail === '' ? '' : `: ${detail.slice(0, 2000)}`}`;
}
