import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventType } from '../api/types.ts';
import { applyRunEvent, dismissQuestion, emptyLiveRun, type LiveRun } from './live-run.ts';
import { createRunStreamStore, type KeyValueStorage } from './run-stream-store.ts';
import { looseRunEvent } from './loose-run-event.ts';

let seq = 0;
function ev(type: RunEventType, payload: Record<string, unknown> = {}): RunEvent {
  seq += 1;
  return looseRunEvent(type, payload, { seq });
}

function demoEvents(): RunEvent[] {
  seq = 0;
  return [
    ev('metadata', { model: 'scripted:demo (scripted — not an LLM)' }),
    ev('message_delta', { text: "I'll write " }),
    ev('message_delta', { text: 'a note.' }),
    ev('tool_call', { tool_call_id: 'c1', name: 'write_file', args: { path: 'a.md' } }),
    ev('approval_required', { tool_call_id: 'c1', name: 'write_file', args: { path: 'a.md' } }),
    ev('tool_result', { tool_call_id: 'c1', name: 'write_file', output: 'Created', is_error: false }),
    ev('step', { step: 1 }),
    ev('message_delta', { text: 'Done.' }),
    ev('end', { status: 'completed', output: 'Done.', error: null }),
  ];
}

const fold = (events: RunEvent[], from: LiveRun = emptyLiveRun('run_1')): LiveRun =>
  events.reduce(applyRunEvent, from);

class MapStorage implements KeyValueStorage {
  readonly map = new Map<string, string>();
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
}

describe('applyRunEvent: a model call retried or handed to a fallback', () => {
  it("drops the failed attempt's text and says what happens, so the retry's answer is shown once", () => {
    seq = 0;
    const events = [
      ev('metadata', { model: 'openai:gpt-4o' }),
      ev('message_delta', { text: 'Before. ' }),
      ev('tool_call', { tool_call_id: 'c1', name: 'read_file', args: {} }),
      ev('tool_result', { tool_call_id: 'c1', name: 'read_file', output: 'x', is_error: false }),
      ev('message_delta', { text: 'The ans' }),
      ev('model_retry', {
        attempt: 1,
        max_retries: 4,
        reason: 'rate_limited',
        status: 429,
        wait_ms: 2000,
        model: 'openai:gpt-4o',
        discarded_chars: 7,
      }),
      ev('message_delta', { text: 'The answer.' }),
    ];
    expect(fold(events).items).toEqual([
      { kind: 'text', text: 'Before. ' },
      {
        kind: 'tool',
        toolCallId: 'c1',
        name: 'read_file',
        args: {},
        result: { output: 'x', isError: false },
      },
      {
        kind: 'notice',
        tone: 'info',
        code: 'model_retry',
        text: 'openai:gpt-4o failed (rate limited, HTTP 429): retry 1 of 4 in 2.0 s.',
      },
      { kind: 'text', text: 'The answer.' },
    ]);
  });

  it('keeps text of earlier turns when only part of the trailing text was the failed attempt', () => {
    seq = 0;
    const events = [
      ev('message_delta', { text: 'Kept. Cut' }),
      ev('model_fallback', {
        from: 'openai:gpt-4o',
        to: 'anthropic:claude',
        reason: 'overloaded',
        discarded_chars: 3,
      }),
    ];
    expect(fold(events).items).toEqual([
      { kind: 'text', text: 'Kept. ' },
      {
        kind: 'notice',
        tone: 'info',
        code: 'model_fallback',
        text: 'openai:gpt-4o failed (overloaded): anthropic:claude takes over.',
      },
    ]);
  });
});

describe('applyRunEvent', () => {
  it('folds deltas into text, attaches results to calls and tracks approvals', () => {
    const events = demoEvents();
    const mid = fold(events.slice(0, 5));
    expect(mid.items).toEqual([
      { kind: 'text', text: "I'll write a note." },
      { kind: 'tool', toolCallId: 'c1', name: 'write_file', args: { path: 'a.md' } },
    ]);
    expect(mid.approvals).toEqual([{ toolCallId: 'c1', name: 'write_file', args: { path: 'a.md' } }]);
    const done = fold(events);
    expect(done.approvals).toEqual([]);
    expect(done.items[1]).toMatchObject({ result: { output: 'Created', isError: false } });
    expect(done.items[2]).toEqual({ kind: 'text', text: 'Done.' });
    expect(done.model).toContain('not an LLM');
    expect(done.end).toMatchObject({ status: 'completed', output: 'Done.' });
  });

  it('ignores events at or below lastSeq, so any replayed overlap changes nothing', () => {
    const events = demoEvents();
    const once = fold(events);
    expect(fold([...events.slice(0, 4), ...events.slice(2)])).toEqual(once);
    expect(fold(events, once)).toBe(once);
  });

  it('records error events as notices with their code and a failed end with its error', () => {
    seq = 0;
    const view = fold([
      ev('error', { error: { type: 'model_call_failed', message: 'boom' } }),
      ev('end', { status: 'failed', error: { type: 'model_call_failed', message: 'boom' } }),
    ]);
    expect(view.items).toEqual([{ kind: 'notice', tone: 'error', code: 'model_call_failed', text: 'boom' }]);
    expect(view.end).toMatchObject({
      status: 'failed',
      error: { type: 'model_call_failed', message: 'boom' },
    });
  });
});

describe('questions in the live view', () => {
  it('tracks a pending question until its tool result, the end, or a local dismissal', () => {
    seq = 0;
    const questions = [{ question: 'Which format?', options: ['bullets', 'prose'] }];
    const asked = fold([
      ev('tool_call', { tool_call_id: 'q1', name: 'ask_user_question', args: { questions } }),
      ev('question_required', { tool_call_id: 'q1', questions }),
      ev('question_required', { tool_call_id: 'q1', questions }),
    ]);
    expect(asked.questions).toEqual([{ toolCallId: 'q1', questions }]);
    expect(dismissQuestion(asked, 'q1').questions).toEqual([]);
    const answered = fold(
      [ev('tool_result', { tool_call_id: 'q1', name: 'ask_user_question', output: 'ok', is_error: false })],
      asked,
    );
    expect(answered.questions).toEqual([]);
    expect(fold([ev('end', { status: 'cancelled' })], asked).questions).toEqual([]);
    // A view saved before questions existed has no `questions` field and still folds new ones.
    const { questions: _dropped, ...legacy } = emptyLiveRun('run_1');
    seq = 0;
    expect(
      fold([ev('question_required', { tool_call_id: 'q2', questions })], legacy as LiveRun).questions,
    ).toHaveLength(1);
    expect(fold([ev('artifact', { artifact: { id: 'art_1' } })]).items).toEqual([]);
  });
});

describe('subagent updates in the live view', () => {
  it('keeps the latest update per child, so a restored view can rebuild the status panel', () => {
    seq = 0;
    const view = fold([
      ev('subagent_update', { run_id: 'c1', status: 'pending', slug: 'researcher' }),
      ev('subagent_update', { run_id: 'c2', status: 'running', slug: 'analyst' }),
      ev('subagent_update', { run_id: 'c1', status: 'running', slug: 'researcher' }),
    ]);
    expect(Object.values(view.subagents).map((update) => [update.run_id, update.status])).toEqual([
      ['c1', 'running'],
      ['c2', 'running'],
    ]);
    const storage = new MapStorage();
    createRunStreamStore(storage).save(view);
    expect(createRunStreamStore(storage).load('run_1')?.subagents).toEqual(view.subagents);
  });
});

describe('stream resume bookkeeping (sessionStorage per run)', () => {
  it('a reload at any point, resumed from the stored seq, ends with exactly the uninterrupted view', () => {
    const events = demoEvents();
    const expected = fold(events);
    for (let cut = 0; cut <= events.length; cut += 1) {
      const storage = new MapStorage();
      const store = createRunStreamStore(storage);
      // First page: sees events up to the cut, saving after each.
      let view = emptyLiveRun('run_1');
      for (const item of events.slice(0, cut)) {
        view = applyRunEvent(view, item);
        store.save(view);
      }
      // Reloaded page: restores and asks the server for what follows; the server may resend one event.
      const restored = createRunStreamStore(storage).load('run_1') ?? emptyLiveRun('run_1');
      expect(restored.lastSeq).toBe(cut);
      const replay = events.filter((item) => item.seq > Math.max(0, restored.lastSeq - 1));
      expect(fold(replay, restored)).toEqual(expected);
    }
  });

  it('keeps one entry per run, refuses malformed or foreign entries, and survives storage failures', () => {
    const storage = new MapStorage();
    const store = createRunStreamStore(storage);
    store.save({ ...emptyLiveRun('run_a'), lastSeq: 3 });
    store.save({ ...emptyLiveRun('run_b'), lastSeq: 5 });
    expect(store.load('run_a')?.lastSeq).toBe(3);
    expect(store.load('run_b')?.lastSeq).toBe(5);
    store.clear('run_a');
    expect(store.load('run_a')).toBeUndefined();
    storage.setItem('troupe.run-stream.run_c', '{not json');
    expect(store.load('run_c')).toBeUndefined();
    storage.setItem('troupe.run-stream.run_d', JSON.stringify({ ...emptyLiveRun('run_other'), lastSeq: 2 }));
    expect(store.load('run_d')).toBeUndefined();
    storage.setItem(
      'troupe.run-stream.run_e',
      JSON.stringify({ runId: 'run_e', lastSeq: -1, items: [], approvals: [] }),
    );
    expect(store.load('run_e')).toBeUndefined();

    const broken: KeyValueStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    const tolerant = createRunStreamStore(broken);
    expect(() => tolerant.save(emptyLiveRun('x'))).not.toThrow();
    expect(tolerant.load('x')).toBeUndefined();
    expect(() => tolerant.clear('x')).not.toThrow();
    expect(createRunStreamStore(undefined).load('x')).toBeUndefined();
  });
});

describe('applyRunEvent: a resumed step announces its tool calls again', () => {
  it('keeps one item per tool call id, with its result, after the call is announced a second time', () => {
    seq = 0;
    const events = [
      ev('tool_call', { tool_call_id: 'c1', name: 'execute', args: { command: 'echo one' } }),
      ev('approval_required', { tool_call_id: 'c1', name: 'execute', args: { command: 'echo one' } }),
      // The approval resumes the run in a new attempt: the step's call is streamed again, then runs.
      ev('tool_call', { tool_call_id: 'c1', name: 'execute', args: { command: 'echo one' } }),
      ev('tool_result', { tool_call_id: 'c1', name: 'execute', output: 'one', is_error: false }),
      ev('tool_call', { tool_call_id: 'c2', name: 'execute', args: { command: 'echo two' } }),
    ];
    const view = fold(events);
    expect(view.items.map((item) => (item.kind === 'tool' ? item.toolCallId : item.kind))).toEqual([
      'c1',
      'c2',
    ]);
    expect(view.items[0]).toMatchObject({ result: { output: 'one', isError: false } });
  });
});
