import { describe, expect, it } from 'vitest';
import type { ThreadMessage } from '../records/thread-message.js';
import type { ChatMessage } from '../thread/chat-message.js';
import { comparedSteps } from './compared-steps.js';

// Every message in the same millisecond: what a fast machine writes, and what telling copies by time got wrong.
const AT = '2026-12-07T02:00:00.000Z';
let seq = 0;
function entry(runId: string, step: number, message: ChatMessage): ThreadMessage {
  seq += 1;
  return { thread_id: 'thr_1', seq, run_id: runId, step, message, created_at: AT, usage: null };
}
const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a' } }],
});
const result = (id: string): ChatMessage => ({
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: 'x' } },
  ],
});
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: text });
/** A step that called `read_file` once, with its result. */
const toolStep = (runId: string, step: number): ThreadMessage[] => [
  entry(runId, step, call(`${runId}_c${step}`)),
  entry(runId, step, result(`${runId}_c${step}`)),
];

describe('comparedSteps', () => {
  it('marks a continuing fork’s kept steps copied and its own later steps not, whatever their times', () => {
    const thread = [
      entry('run_fork', 0, user('continue me')),
      ...toolStep('run_fork', 1),
      ...toolStep('run_fork', 2),
      entry('run_fork', 3, answer('done')),
    ];
    const steps = comparedSteps({ id: 'run_fork', forked_from: { run_id: 'run_src', step: 1 } }, thread);
    expect(steps.map((step) => [step.step, step.copied, step.tool_calls])).toEqual([
      [1, true, [{ name: 'read_file', is_error: false }]],
      [2, false, [{ name: 'read_file', is_error: false }]],
      [3, false, []],
    ]);
  });

  it('marks nothing copied in a fork with an input: the source’s steps stay the source’s, as history', () => {
    const thread = [
      entry('run_src', 0, user('first')),
      ...toolStep('run_src', 1),
      entry('run_src', 2, answer('one')),
      entry('run_fork', 0, user('and now')),
      entry('run_fork', 1, answer('two')),
    ];
    const steps = comparedSteps({ id: 'run_fork', forked_from: { run_id: 'run_src', step: 2 } }, thread);
    expect(steps.map((step) => [step.step, step.copied, step.text])).toEqual([[1, false, 'two']]);
  });

  it('marks nothing copied in a run that is not a fork', () => {
    const thread = [entry('run_a', 0, user('hi')), entry('run_a', 1, answer('hello'))];
    expect(comparedSteps({ id: 'run_a', forked_from: null }, thread)).toMatchObject([
      { step: 1, copied: false, text: 'hello' },
    ]);
  });
});
