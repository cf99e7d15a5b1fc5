import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { DELEGATION_EXTENSION_URI } from '../../core/remote-experts/delegation-context.js';
import { evidenceLine } from '../../core/verification/evidence.js';
import { remoteEvidence } from '../../core/verification/remote-evidence.js';
import { remoteReport } from './remote-report.js';
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

describe("a remote task's evidence", () => {
  it('a plain A2A remote reports nothing: what the task exposed, flagged remote_reported and no_remote_evidence', () => {
    const view = emptyRemoteTask();
    applyStreamEvent(view, status(TaskState.TASK_STATE_WORKING, 'Reading the brief'));
    applyStreamEvent(view, artifact('The answer', false, 'answer-1'));
    applyStreamEvent(view, status(TaskState.TASK_STATE_COMPLETED, 'Done'));
    const report = remoteReport(view);
    expect(report).toEqual({
      task: {
        task_id: 't1',
        context_id: 'c1',
        state: 'TASK_STATE_COMPLETED',
        artifacts: [{ artifact_id: 'answer-1', name: '', chars: 10 }],
        messages: 2,
        reported_by: 'a2a',
      },
      reported: null,
    });
    const usage = {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      model_calls: 0,
      aborted_model_calls: 0,
    };
    const evidence = remoteEvidence({ id: 'run_1', status: 'completed', usage, error: null }, report);
    expect(evidence).toMatchObject({
      run_id: 'run_1',
      tool_calls: {},
      tool_calls_total: 0,
      flags: ['remote_reported', 'no_remote_evidence'],
      remote: { reported_by: 'a2a', state: 'TASK_STATE_COMPLETED' },
    });
    // Tool calls are unknown, not none: the short form does not claim "no tool calls".
    expect(evidenceLine(evidence)).toBe(
      '[evidence] remote task completed; 0 model calls; tools: not reported; 0 tokens; flags: remote_reported, no_remote_evidence',
    );
  });

  it('keeps the evidence a remote Troupe reports in the ended task metadata, and ignores what is not evidence', () => {
    const reported = {
      run_id: 'remote_run',
      status: 'completed',
      model_calls: 2,
      tokens: { input: 10, output: 5, total: 15 },
      tool_calls: { write_file: { calls: 1, failed: 0 } },
      tool_calls_total: 1,
      tool_calls_failed: 0,
      files_written: ['notes.md'],
      artifacts: [],
      children: [],
      flags: [],
    };
    const ended = (evidence: unknown): StreamResponse => ({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: 't1',
          contextId: 'c1',
          status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
          metadata: { [DELEGATION_EXTENSION_URI]: { evidence } },
        },
      },
    });
    const troupe = emptyRemoteTask();
    applyStreamEvent(troupe, ended(reported));
    const report = remoteReport(troupe);
    expect(report.reported).toEqual(reported);
    expect(report.task.reported_by).toBe('troupe');
    const evidence = remoteEvidence({ id: 'run_1', status: 'completed', usage: null, error: null }, report);
    expect(evidence).toMatchObject({
      tool_calls: { write_file: { calls: 1, failed: 0 } },
      files_written: ['notes.md'],
      flags: ['remote_reported'],
    });
    const garbled = emptyRemoteTask();
    applyStreamEvent(garbled, ended({ tool_calls_total: 'many' }));
    expect(remoteReport(garbled).reported).toBeNull();
  });
});
