import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { RunStatus, ToolApproval } from '../../core/records/run.js';
import { toTaskState } from './a2a-task-state.js';
import { runToTask } from './run-to-a2a-task.js';
import { fakeRun } from '../../../test/helpers/a2a/fake-run.js';

const approval: ToolApproval = {
  run_id: 'run-1',
  tool_call_id: 'call-7',
  tool_name: 'write_file',
  kind: 'approval',
  args: {},
  status: 'pending',
  comment: null,
  decided_by: null,
  created_at: '2030-01-01T00:00:01.000Z',
  decided_at: null,
  answers: null,
  scope: 'call',
};

describe('run status → A2A task state', () => {
  it.each<[RunStatus, boolean, TaskState]>([
    ['pending', false, TaskState.TASK_STATE_SUBMITTED],
    ['running', false, TaskState.TASK_STATE_WORKING],
    ['running', true, TaskState.TASK_STATE_INPUT_REQUIRED],
    ['input_required', true, TaskState.TASK_STATE_INPUT_REQUIRED],
    ['cancel_requested', false, TaskState.TASK_STATE_WORKING],
    ['completed', false, TaskState.TASK_STATE_COMPLETED],
    ['failed', false, TaskState.TASK_STATE_FAILED],
    ['interrupted', false, TaskState.TASK_STATE_FAILED],
    ['cancelled', false, TaskState.TASK_STATE_CANCELED],
  ])('%s (approval pending: %s) ⇒ %s', (status, awaiting, state) => {
    expect(toTaskState(status, awaiting)).toBe(state);
  });
});

describe('runToTask', () => {
  it('a completed run: the answer is the output artifact, the status message and the last history entry', () => {
    const task = runToTask(fakeRun(), []);
    expect(task).toMatchObject({ id: 'run-1', contextId: 'cnv_1' });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((artifact) => [artifact.artifactId, artifact.parts[0]?.content])).toEqual([
      ['output', { $case: 'text', value: 'the answer' }],
    ]);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'the answer' });
    expect(task.history.map((message) => message.parts[0]?.content)).toEqual([
      { $case: 'text', value: 'the question' },
      { $case: 'text', value: 'the answer' },
    ]);
    expect(runToTask(fakeRun(), [], { historyLength: 1 }).history).toHaveLength(1);
    expect(runToTask(fakeRun(), [], { historyLength: 0 }).history).toEqual([]);
  });

  it('a run waiting for approval says which call waits and where to decide it', () => {
    const task = runToTask(fakeRun({ status: 'input_required', output: null, finished_at: null }), [
      approval,
    ]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const text = task.status?.message?.parts[0]?.content;
    expect(text?.$case === 'text' ? text.value : '').toMatch(
      /write_file \(tool call call-7\).*\/api\/agent\/runs\/run-1\/approvals/,
    );
    expect(task.artifacts).toEqual([]);
  });

  it('a failed run carries its error as the status message and no answer', () => {
    const task = runToTask(
      fakeRun({
        status: 'failed',
        output: null,
        error: { type: 'model_call_failed', message: 'The model is down' },
      }),
      [],
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'The model is down' });
    expect(task.history).toHaveLength(1);
  });
});
