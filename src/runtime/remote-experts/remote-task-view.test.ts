import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { applyStreamEvent, emptyRemoteTask, remoteAnswer, remoteFailureText } from './remote-task-view.js';

const part = (text: string) => ({
  content: { $case: 'text' as const, value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const message = (text: string) => ({
  messageId: 'm',
  taskId: 't1',
  contextId: 'c1',
  role: 2,
  parts: [part(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const status = (state: TaskState, text?: string): StreamResponse => ({
  payload: {
    $case: 'statusUpdate',
    value: {
      taskId: 't1',
      contextId: 'c1',
      status: { state, message: text === undefined ? undefined : message(text), timestamp: undefined },
      metadata: undefined,
    },
  },
});
const artifact = (text: string, append: boolean, id = 'output'): StreamResponse => ({
  payload: {
    $case: 'artifactUpdate',
    value: {
      taskId: 't1',
      contextId: 'c1',
      artifact: {
        artifactId: id,
        name: '',
        description: '',
        parts: [part(text)],
        metadata: undefined,
        extensions: [],
      },
      append,
      lastChunk: false,
      metadata: undefined,
    },
  },
});

describe('folding a remote task stream', () => {
  it('identifies the task once, streams appended text and only the new tail of a growing replacement', () => {
    const view = emptyRemoteTask();
    expect(applyStreamEvent(view, status(TaskState.TASK_STATE_WORKING))).toEqual({ identified: true });
    expect(applyStreamEvent(view, artifact('Hel', false)).delta).toBe('Hel');
    expect(applyStreamEvent(view, artifact('lo', true))).toEqual({ delta: 'lo' });
    // The final answer replaces the artifact with the same text: nothing is shown twice.
    expect(applyStreamEvent(view, artifact('Hello', false)).delta).toBeUndefined();
    expect(applyStreamEvent(view, artifact('Hello, world', false)).delta).toBe(', world');
    expect(applyStreamEvent(view, status(TaskState.TASK_STATE_COMPLETED, 'done')).progress).toBe('done');
    expect(view).toMatchObject({ taskId: 't1', contextId: 'c1', state: TaskState.TASK_STATE_COMPLETED });
    expect(remoteAnswer(view)).toBe('Hello, world');
  });

  it('answers with a direct message reply, and with the status text when there is no artifact', () => {
    const replied = emptyRemoteTask();
    applyStreamEvent(replied, { payload: { $case: 'message', value: message('Just this') } });
    expect(remoteAnswer(replied)).toBe('Just this');
    const statusOnly = emptyRemoteTask();
    applyStreamEvent(statusOnly, status(TaskState.TASK_STATE_COMPLETED, 'All good'));
    expect(remoteAnswer(statusOnly)).toBe('All good');
  });

  it('words failures and waits a delegated task cannot satisfy', () => {
    const failed = emptyRemoteTask();
    applyStreamEvent(failed, status(TaskState.TASK_STATE_FAILED, 'quota exceeded'));
    expect(remoteFailureText(failed)).toBe("The remote expert's task failed: quota exceeded");
    const waiting = emptyRemoteTask();
    applyStreamEvent(waiting, status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which region?'));
    expect(remoteFailureText(waiting)).toMatch(
      /asked for input, which a delegated task cannot give: Which region\?/,
    );
  });
});
