import { describe, expect, it } from 'vitest';
import { liveRunStatus, waitingForUser } from './conversation-phase.ts';
import { emptyLiveRun, type LiveRun } from './live-run.ts';

const view = (patch: Partial<LiveRun>): LiveRun => ({ ...emptyLiveRun('run_1'), ...patch });
const approval = { toolCallId: 'call_a', name: 'write_file', args: {} };
const question = { toolCallId: 'call_q', questions: [{ question: 'Which?' }] };
const base = { activeRunId: 'run_1', activeRun: null, cancelling: false, resuming: false };

describe('liveRunStatus', () => {
  it('says nothing while no run is followed or its stream has not started', () => {
    expect(liveRunStatus({ ...base, activeRunId: null, view: view({ lastSeq: 3 }) })).toBeNull();
    expect(liveRunStatus({ ...base, view: null })).toBeNull();
  });

  it('prefers the end, then a wait for the user, then a cancel asked, then a hand-back, then the stream', () => {
    const end = { status: 'failed' as const, output: null, error: null, usage: null };
    expect(liveRunStatus({ ...base, cancelling: true, view: view({ end, approvals: [approval] }) })).toBe(
      'failed',
    );
    expect(liveRunStatus({ ...base, cancelling: true, view: view({ questions: [question] }) })).toBe(
      'input_required',
    );
    expect(liveRunStatus({ ...base, cancelling: true, resuming: true, view: view({}) })).toBe(
      'cancel_requested',
    );
    expect(liveRunStatus({ ...base, resuming: true, view: view({ lastSeq: 4 }) })).toBe('pending');
    expect(liveRunStatus({ ...base, view: view({ lastSeq: 4 }) })).toBe('running');
    expect(liveRunStatus({ ...base, view: view({}) })).toBe('pending');
  });
});

describe('waitingForUser', () => {
  it('names a question before an approval, and nothing once the run ended', () => {
    expect(waitingForUser('run_1', view({ approvals: [approval], questions: [question] }))).toBe('answer');
    expect(waitingForUser('run_1', view({ approvals: [approval] }))).toBe('approval');
    expect(waitingForUser('run_1', view({}))).toBeNull();
    const end = { status: 'completed' as const, output: 'ok', error: null, usage: null };
    expect(waitingForUser('run_1', view({ end, approvals: [approval] }))).toBeNull();
    expect(waitingForUser(null, view({ approvals: [approval] }))).toBeNull();
  });
});
