import { describe, expect, it } from 'vitest';
import { storedRunEvent, type RunEvent, type RunEventType } from '../records/run-event.js';
import { foldRunTimeline, foldRunTimelineEvents } from './fold-run-timeline.js';
import { emptyTimeline, ownUsage, timelineUsage, visibleSpans } from './run-timeline.js';

/** Events one second apart from 12:00:00, numbered from 1. */
function script(...items: [RunEventType, Record<string, unknown>][]): RunEvent[] {
  return items.map(([type, payload], index) =>
    storedRunEvent({
      run_id: 'run_1',
      seq: index + 1,
      type,
      payload,
      created_at: new Date(Date.UTC(2030, 0, 1, 12, 0, index)).toISOString(),
    }),
  );
}

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second)).toISOString();

describe('foldRunTimeline: retries and fallbacks of a model call', () => {
  it('shows a failed attempt, its back-off and the retry that answered, counting one model call', () => {
    const events = script(
      ['metadata', { model: 'openai:gpt-4o' }],
      ['message_delta', { text: 'cut o' }],
      [
        'model_retry',
        { step: 1, attempt: 1, reason: 'rate_limited', status: 429, wait_ms: 2000, model: 'openai:gpt-4o' },
      ],
      ['message_delta', { text: 'Fine.' }],
      ['step', { step: 1, tool_calls: 0, usage: { input_tokens: 5, output_tokens: 2 } }],
      ['end', { status: 'completed' }],
    );
    const timeline = foldRunTimelineEvents(events);
    expect(
      timeline.spans.map((span) => [span.kind, span.started_at, span.ended_at, span.status, span.note]),
    ).toEqual([
      ['model', at(0), at(2), 'error', 'rate_limited (HTTP 429); retry 1 after 2.0 s'],
      ['wait', at(2), at(4), 'done', 'retry 1 of openai:gpt-4o after 2.0 s'],
      ['model', at(4), at(4), 'done', undefined],
    ]);
    expect(timelineUsage(timeline).model_calls).toBe(1);
  });

  it('names the spans of a fallback after the model that took the call, until the step ends', () => {
    const events = script(
      ['metadata', { model: 'openai:gpt-4o' }],
      [
        'model_fallback',
        { step: 1, from: 'openai:gpt-4o', to: 'anthropic:claude', reason: 'overloaded', status: 503 },
      ],
      ['step', { step: 1, tool_calls: 1, usage: { input_tokens: 5, output_tokens: 2 } }],
      ['tool_call', { step: 2, tool_call_id: 'c1', name: 'read_file', args: {} }],
    );
    const timeline = foldRunTimelineEvents(events);
    expect(timeline.spans.map((span) => [span.kind, span.name, span.status])).toEqual([
      ['model', 'openai:gpt-4o', 'error'],
      ['model', 'anthropic:claude', 'done'],
      ['model', 'openai:gpt-4o', 'done'],
      ['tool', 'read_file', 'running'],
    ]);
    expect(timeline.spans[0]?.note).toBe(
      'overloaded (HTTP 503); retries exhausted, falling back to anthropic:claude',
    );
  });

  it('a back-off that the end cuts short ends with the run', () => {
    const events = script(
      ['metadata', { model: 'openai:gpt-4o' }],
      [
        'model_retry',
        { step: 1, attempt: 1, reason: 'rate_limited', wait_ms: 30_000, model: 'openai:gpt-4o' },
      ],
      ['end', { status: 'cancelled' }],
    );
    const wait = foldRunTimelineEvents(events).spans.find((span) => span.kind === 'wait');
    expect(wait).toMatchObject({ ended_at: at(2), status: 'cancelled' });
  });
});

describe('foldRunTimeline', () => {
  it('times model calls from metadata/step to their first tool call or step, and tools call → result', () => {
    const events = script(
      ['metadata', { model: 'scripted:demo' }],
      ['message_delta', { text: 'Writing' }],
      ['tool_call', { step: 1, tool_call_id: 'c1', name: 'write_file', args: {} }],
      ['tool_call', { step: 1, tool_call_id: 'c2', name: 'read_file', args: {} }],
      ['tool_result', { step: 1, tool_call_id: 'c2', name: 'read_file', output: 'x', is_error: true }],
      ['tool_result', { step: 1, tool_call_id: 'c1', name: 'write_file', output: 'ok', is_error: false }],
      ['step', { step: 1, tool_calls: 2, usage: { input_tokens: 10, output_tokens: 4 } }],
      ['message_delta', { text: 'Done' }],
      ['step', { step: 2, tool_calls: 0, usage: { input_tokens: 20, output_tokens: 6 } }],
      ['end', { status: 'completed' }],
    );
    const timeline = foldRunTimelineEvents(events);
    expect(
      timeline.spans.map((span) => [span.kind, span.name, span.started_at, span.ended_at, span.status]),
    ).toEqual([
      ['model', 'scripted:demo', at(0), at(2), 'done'],
      ['tool', 'write_file', at(2), at(5), 'done'],
      ['tool', 'read_file', at(3), at(4), 'error'],
      ['model', 'scripted:demo', at(6), at(8), 'done'],
    ]);
    expect(timeline.spans.map((span) => span.usage)).toEqual([
      { input_tokens: 10, output_tokens: 4 },
      null,
      null,
      { input_tokens: 20, output_tokens: 6 },
    ]);
    expect(timelineUsage(timeline)).toEqual({
      input_tokens: 30,
      output_tokens: 10,
      total_tokens: 40,
      model_calls: 2,
      aborted_model_calls: 0,
    });
    expect(timeline.ended).toEqual({ status: 'completed', at: at(9) });
    expect(visibleSpans(timeline)).toEqual(timeline.spans);
  });

  it('shows the model call in progress, and a tool waiting for approval until the resumed run runs it', () => {
    const events = script(
      ['metadata', { model: 'm' }],
      ['tool_call', { step: 1, tool_call_id: 'w', name: 'write_file' }],
      ['approval_required', { tool_call_id: 'w', name: 'write_file' }],
      ['metadata', { model: 'm' }],
      ['tool_call', { step: 1, tool_call_id: 'w', name: 'write_file' }],
      ['tool_result', { step: 1, tool_call_id: 'w', output: 'ok', is_error: false }],
      ['step', { step: 1, tool_calls: 1, resumed: true }],
    );
    const parked = foldRunTimelineEvents(events.slice(0, 3));
    expect(visibleSpans(parked).map((span) => [span.kind, span.status])).toEqual([
      ['model', 'done'],
      ['tool', 'awaiting_approval'],
    ]);
    const resumed = foldRunTimelineEvents(events);
    expect(resumed.attempts).toBe(2);
    expect(resumed.spans.map((span) => [span.kind, span.status, span.started_at, span.ended_at])).toEqual([
      ['model', 'done', at(0), at(1)],
      ['tool', 'done', at(1), at(5)],
    ]);
    expect(visibleSpans(resumed).at(-1)).toMatchObject({
      id: 'model-open',
      started_at: at(6),
      ended_at: null,
    });
  });

  it('closes what was open when the run is cancelled, and records a model call a restart interrupted', () => {
    const cancelled = foldRunTimelineEvents(
      script(
        ['metadata', { model: 'm' }],
        ['message_delta', { text: 'Half an ans' }],
        ['end', { status: 'cancelled' }],
      ),
    );
    expect(cancelled.spans).toMatchObject([
      { kind: 'model', status: 'cancelled', started_at: at(0), ended_at: at(2) },
    ]);

    const restarted = foldRunTimelineEvents(
      script(
        ['metadata', { model: 'm' }],
        ['message_delta', { text: 'Half' }],
        ['metadata', { model: 'm' }],
        ['step', { step: 1, tool_calls: 0 }],
        ['end', { status: 'completed' }],
      ),
    );
    expect(restarted.spans.map((span) => [span.status, span.started_at, span.ended_at])).toEqual([
      ['interrupted', at(0), at(1)],
      ['done', at(2), at(3)],
    ]);
    // Each attempt is a segment of its own: the gap between them is when nobody worked on the run.
    expect(restarted.segments).toEqual([
      { attempt: 1, started_at: at(0), last_event_at: at(1) },
      { attempt: 2, started_at: at(2), last_event_at: at(4) },
    ]);
  });

  it("takes a call's usage from the first tool call it asked for, which commits with its turn", () => {
    const timeline = foldRunTimelineEvents(
      script(
        ['metadata', { model: 'm' }],
        [
          'tool_call',
          { step: 1, tool_call_id: 'a', name: 'ls', model_usage: { input_tokens: 9, output_tokens: 2 } },
        ],
        ['tool_call', { step: 1, tool_call_id: 'b', name: 'ls' }],
      ),
    );
    expect(timeline.spans.map((span) => span.usage)).toEqual([
      { input_tokens: 9, output_tokens: 2 },
      null,
      null,
    ]);
    expect(timelineUsage(timeline)).toMatchObject({ total_tokens: 11, model_calls: 1 });
    // The step's own `step` event, after its tools, changes nothing.
    const stepped = foldRunTimeline(
      timeline,
      storedRunEvent({
        run_id: 'run_1',
        seq: 4,
        type: 'step',
        payload: { step: 1, tool_calls: 2, usage: { input_tokens: 9, output_tokens: 2 } },
        created_at: at(4),
      }),
    );
    expect(timelineUsage(stepped)).toMatchObject({ total_tokens: 11, model_calls: 1 });
  });

  it('counts an open call as aborted exactly when the usage of the next attempt or the end says so', () => {
    const usage = (aborted: number) => ({
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      model_calls: 0,
      aborted_model_calls: aborted,
    });
    // Cancelled between steps: no call reached the provider, so none is shown.
    const between = foldRunTimelineEvents(
      script(['metadata', { model: 'm' }], ['end', { status: 'cancelled', usage: usage(0) }]),
    );
    expect(between.spans).toEqual([]);
    const during = foldRunTimelineEvents(
      script(['metadata', { model: 'm' }], ['end', { status: 'failed', usage: usage(1) }]),
    );
    expect(during.spans.map((span) => span.status)).toEqual(['error']);
    expect(timelineUsage(during).aborted_model_calls).toBe(1);
    // A worker lost mid-call: its takeover counted the call, the next attempt's metadata carries that.
    const lost = foldRunTimelineEvents(
      script(
        ['metadata', { model: 'm', usage: null }],
        ['metadata', { model: 'm', usage: usage(1) }],
        ['metadata', { model: 'm', usage: usage(1) }],
      ),
    );
    expect(lost.spans.map((span) => span.status)).toEqual(['interrupted']);
    expect(lost.attempts).toBe(3);
  });

  it('ignores events at or below last_seq, so a resumed stream may overlap', () => {
    const events = script(
      ['metadata', { model: 'm' }],
      ['tool_call', { step: 1, tool_call_id: 'a', name: 'ls' }],
    );
    const once = foldRunTimelineEvents(events);
    expect(foldRunTimelineEvents(events, once)).toBe(once);
    expect(foldRunTimeline(emptyTimeline(), events[0] as RunEvent).last_seq).toBe(1);
  });

  it('takes the larger of the stored usage and the reported one', () => {
    const timeline = foldRunTimelineEvents(
      script(
        ['metadata', {}],
        ['step', { step: 1, tool_calls: 0, usage: { input_tokens: 5, output_tokens: 5 } }],
      ),
    );
    expect(ownUsage(null, timeline).total_tokens).toBe(10);
    expect(
      ownUsage({ input_tokens: 30, output_tokens: 3, total_tokens: 33, model_calls: 2 }, timeline)
        .total_tokens,
    ).toBe(33);
    expect(ownUsage({ model_calls: 0, aborted_model_calls: 2 }, timeline)).toMatchObject({
      total_tokens: 10,
      model_calls: 1,
      aborted_model_calls: 2,
    });
  });
});
