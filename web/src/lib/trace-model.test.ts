import { describe, expect, it } from 'vitest';
import type { Run, RunEvent, RunTrace, TraceNode } from '../api/types.ts';
import { emptyTimeline, zeroUsage } from '../../../src/core/trace/run-timeline.ts';
import { callsText } from './run-phase.ts';
import { looseRunEvent } from './loose-run-event.ts';
import {
  applyTraceEvent,
  mergeSnapshot,
  nodeCallCounts,
  placeBar,
  stepOfSpan,
  streamCandidates,
  traceChildEntries,
  traceWindow,
} from './trace-model.ts';

function node(
  id: string,
  parent: string | null,
  status: Run['status'],
  created: string,
  children: string[] = [],
): TraceNode {
  return {
    run: {
      id,
      status,
      created_at: created,
      started_at: created,
      finished_at: null,
      updated_at: created,
      usage: null,
    } as Run,
    agent: { id: 'agt', slug: 'a', name: 'A' },
    display_name: id,
    parent_run_id: parent,
    child_run_ids: children,
    timeline: emptyTimeline(),
    totals: { own: zeroUsage(), children: zeroUsage(), subtree: zeroUsage() },
    budget: null,
  };
}

const trace = (): RunTrace => ({
  root_run_id: 'root',
  run_id: 'root',
  generated_at: '2030-01-01T00:00:10.000Z',
  nodes: [
    node('root', null, 'running', '2030-01-01T00:00:00.000Z', ['kid']),
    node('kid', 'root', 'running', '2030-01-01T00:00:02.000Z'),
  ],
});

const event = (seq: number, type: RunEvent['type'], payload: Record<string, unknown>): RunEvent =>
  looseRunEvent(type, payload, { runId: 'kid', seq, createdAt: `2030-01-01T00:00:0${seq + 2}.000Z` });

describe('trace model', () => {
  it('folds a live event into its run, and rolls its tokens up to the root', () => {
    let live = applyTraceEvent(trace(), 'kid', event(1, 'metadata', {}));
    live = applyTraceEvent(
      live,
      'kid',
      event(2, 'step', { step: 1, tool_calls: 0, usage: { input_tokens: 5, output_tokens: 2 } }),
    );
    live = applyTraceEvent(live, 'kid', event(3, 'end', { status: 'completed' }));
    const kid = live.nodes[1];
    expect(kid?.run.status).toBe('completed');
    expect(kid?.timeline.spans).toHaveLength(1);
    expect(live.nodes[0]?.totals.children.total_tokens).toBe(7);
    // Replayed events change nothing.
    expect(applyTraceEvent(live, 'kid', event(2, 'step', {}))).toBe(live);
  });

  it("marks each verdict on the parent's timeline at its event's time, keeping the revision's", () => {
    const verdict = (seq: number, verdictName: string, final: boolean): RunEvent =>
      looseRunEvent(
        'verification',
        {
          run_id: 'kid',
          kind: 'subagent',
          verdict: verdictName,
          reasons: final ? [] : ['No word count'],
          evidence: { flags: ['no_tool_calls'] },
          revision: final ? 1 : 0,
          grader_run_id: `grader_${seq}`,
          final,
        },
        { runId: 'root', seq, createdAt: `2030-01-01T00:00:0${seq}.000Z` },
      );
    let live = applyTraceEvent(trace(), 'root', verdict(4, 'needs_revision', false));
    live = applyTraceEvent(live, 'root', verdict(6, 'satisfied', true));
    expect(live.nodes[0]?.timeline.marks).toEqual([
      {
        kind: 'verdict',
        seq: 4,
        at: '2030-01-01T00:00:04.000Z',
        run_id: 'kid',
        verdict: 'needs_revision',
        reasons: ['No word count'],
        flags: ['no_tool_calls'],
        final: false,
        grader_run_id: 'grader_4',
      },
      expect.objectContaining({ seq: 6, verdict: 'satisfied', final: true, grader_run_id: 'grader_6' }),
    ]);
    // No span: a verdict is a moment, not a call.
    expect(live.nodes[0]?.timeline.spans).toEqual([]);
    expect(live.nodes[1]?.timeline.marks).toBeUndefined();
  });

  it('keeps a live timeline that is ahead of a fresh snapshot', () => {
    const live = applyTraceEvent(trace(), 'kid', event(1, 'metadata', { model: 'm' }));
    const merged = mergeSnapshot(live, trace());
    expect(merged.nodes[1]?.timeline.last_seq).toBe(1);
    expect(mergeSnapshot(null, trace()).nodes[1]?.timeline.last_seq).toBe(0);
  });

  it('streams the root first then the newest active runs, and places bars on a shared axis', () => {
    expect(streamCandidates(trace(), 1)).toEqual(['root']);
    expect(streamCandidates(trace(), 3)).toEqual(['root', 'kid']);
    const window = traceWindow(trace(), Date.parse('2030-01-01T00:00:10.000Z'));
    expect(window.end - window.start).toBe(10_000);
    expect(placeBar(window, window.start + 2_000, window.start + 7_000)).toEqual({ left: 20, width: 50 });
    expect(placeBar(window, window.start, window.start).width).toBeGreaterThan(0);
  });

  it('counts calls as the usage does: answered, aborted, and the one underway while someone works on it', () => {
    let live = applyTraceEvent(trace(), 'kid', event(1, 'metadata', {}));
    live = applyTraceEvent(
      live,
      'kid',
      event(2, 'tool_call', {
        step: 1,
        tool_call_id: 'c',
        name: 'ls',
        model_usage: { input_tokens: 4, output_tokens: 1 },
      }),
    );
    live = applyTraceEvent(
      live,
      'kid',
      event(3, 'tool_result', { step: 1, tool_call_id: 'c', is_error: false }),
    );
    live = applyTraceEvent(live, 'kid', event(4, 'step', { step: 1, tool_calls: 1 }));
    const kid = live.nodes[1] as TraceNode;
    expect(nodeCallCounts(kid)).toEqual({ settled: 1, aborted: 0, inProgress: 1, stopped: 0 });
    expect(callsText(nodeCallCounts(kid))).toBe('2 model calls (1 in progress)');
    // Its worker lost, nothing is in progress: the call it left open is stopped, aborted once taken over.
    const lost = {
      since: '2030-01-01T00:00:09.000Z',
      takeover_by: '2030-01-01T00:00:24.000Z',
      then: 'resume' as const,
    };
    const stopped = nodeCallCounts({ ...kid, run: { ...kid.run, worker_lost: lost } });
    expect(stopped).toMatchObject({ inProgress: 0, stopped: 1 });
    expect(callsText(stopped)).toBe('2 model calls (1 stopped with its worker)');
    const ended = applyTraceEvent(
      live,
      'kid',
      event(5, 'end', {
        status: 'cancelled',
        usage: { model_calls: 1, aborted_model_calls: 1, input_tokens: 4, output_tokens: 1, total_tokens: 5 },
      }),
    ).nodes[1] as TraceNode;
    expect(callsText(nodeCallCounts(ended))).toBe('2 model calls (1 aborted)');
    const spans = ended.timeline.spans.filter((span) => span.kind === 'model');
    expect(spans.map((span) => [span.status, stepOfSpan(ended.timeline.spans, span)])).toEqual([
      ['done', 1],
      ['cancelled', 2],
    ]);
  });

  it('names the children of a trace for its transcripts, never by a run id prefix', () => {
    const named = trace();
    const kid = named.nodes[1] as TraceNode;
    named.nodes[1] = {
      ...kid,
      display_name: 'Researcher',
      run: {
        ...kid.run,
        created_by_run_id: 'root',
        run_type: 'subagent',
        input: { message: 'look', parent_tool_call_id: 'call-9' },
      },
    };
    expect(traceChildEntries(named)).toMatchObject([
      {
        run_id: 'kid',
        name: 'Researcher',
        parent_tool_call_id: 'call-9',
        description: 'look',
        kind: 'subagent',
      },
    ]);
  });
});
