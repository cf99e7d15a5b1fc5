import { describe, expect, it } from 'vitest';
import { storedRunEvent, type RunEvent, type RunEventType } from '../records/run-event.js';
import { partialAnswerMarker, partialAnswerMessage, unfinishedModelText } from './partial-answer.js';

let seq = 0;
function event(type: RunEventType, payload: Record<string, unknown> = {}): RunEvent {
  seq += 1;
  return storedRunEvent({ run_id: 'run_1', seq, type, payload, created_at: '2030-01-01T00:00:00.000Z' });
}
const delta = (text: string) => event('message_delta', { text });

describe('unfinishedModelText', () => {
  it('is the text streamed since the last model call boundary', () => {
    const events = [
      event('metadata'),
      delta('Writing.'),
      event('tool_call'),
      event('tool_result'),
      event('step'),
      delta('Half '),
      delta('done'),
    ];
    expect(unfinishedModelText(events)).toBe('Half done');
  });

  it('is empty when the last model call finished (its turn was reported)', () => {
    expect(unfinishedModelText([event('metadata'), delta('All said.'), event('step')])).toBe('');
    expect(unfinishedModelText([event('metadata'), delta('Calling.'), event('tool_call')])).toBe('');
  });

  it('keeps text across events that may land mid-call, and restarts with a new attempt', () => {
    expect(unfinishedModelText([delta('a'), event('subagent_update'), delta('b'), event('error')])).toBe(
      'ab',
    );
    expect(unfinishedModelText([delta('dead attempt'), event('metadata'), delta('new')])).toBe('new');
    // A model call's failed attempt streamed text that its retry (or its fallback) dropped.
    expect(unfinishedModelText([delta('cut off'), event('model_retry'), delta('again')])).toBe('again');
    expect(unfinishedModelText([delta('cut off'), event('model_fallback'), delta('other')])).toBe('other');
  });

  it('reads a long run page by page', () => {
    const first = unfinishedModelText([event('step'), delta('one ')]);
    expect(unfinishedModelText([delta('two')], first)).toBe('one two');
    expect(unfinishedModelText([event('tool_call')], first)).toBe('');
  });
});

describe('partialAnswerMessage', () => {
  it('is an assistant text turn whose marker survives a JSON round trip', () => {
    const message = partialAnswerMessage('Half', 'cancelled');
    expect(message).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Half' }] });
    expect(partialAnswerMarker(JSON.parse(JSON.stringify(message)) as typeof message)).toEqual({
      partial: true,
      run_status: 'cancelled',
    });
    expect(partialAnswerMarker({ role: 'assistant', content: 'done' })).toBeUndefined();
    expect(partialAnswerMarker({ role: 'user', content: 'hi' })).toBeUndefined();
  });
});
