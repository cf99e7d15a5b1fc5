import { describe, expect, it } from 'vitest';
import { storedRunEvent, type RunEvent, type RunEventType } from '../../core/records/run-event.js';
import { createRunProjection } from './run-event-projection.js';

let seq = 0;
const event = (type: RunEventType, payload: Record<string, unknown> = {}): RunEvent =>
  storedRunEvent({ run_id: 'run-1', seq: ++seq, type, payload, created_at: '2030-01-01T00:00:00.000Z' });

describe('the AG-UI projection of a run', () => {
  it('opens a step at its first event, closes the text before a tool call, and the step at its step event', () => {
    const projection = createRunProjection('run-1');
    const out = [
      event('metadata'),
      event('message_delta', { text: 'Let me ' }),
      event('message_delta', { text: 'look.' }),
      event('tool_call', { tool_call_id: 'c1', name: 'ls', args: { path: '.' }, step: 1 }),
      event('tool_result', { tool_call_id: 'c1', output: { files: [] } }),
      event('step', { step: 1 }),
      event('message_delta', { text: 'Done.' }),
      event('step', { step: 2 }),
      event('end'),
    ].flatMap((each) => projection.next(each));
    expect(out.map((each) => each.type)).toEqual([
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
    ]);
    expect(out[5]).toMatchObject({ toolCallName: 'ls', parentMessageId: out[1]?.messageId });
    expect(out[6]).toMatchObject({ delta: '{"path":"."}' });
    expect(out[8]).toMatchObject({ content: '{"files":[]}', role: 'tool' });
    expect(out[10]).toMatchObject({ stepName: 'step 2' });
  });

  it('opens a resumed step to close it, and attributes a child run', () => {
    const projection = createRunProjection('child-1', 'child-1');
    const out = [
      event('tool_result', { tool_call_id: 'c2', output: 'ok' }),
      event('step', { step: 3, resumed: true }),
    ].flatMap((each) => projection.next(each));
    expect(out.map((each) => [each.type, each.subagentRunId, each.stepName])).toEqual([
      ['TOOL_CALL_RESULT', 'child-1', undefined],
      ['STEP_STARTED', 'child-1', 'step 3'],
      ['STEP_FINISHED', 'child-1', 'step 3'],
    ]);
    expect(projection.close()).toEqual([]);
  });
});
