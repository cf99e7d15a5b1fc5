import { describe, expect, it } from 'vitest';
import { EVIDENCE_FLAGS } from '../../../src/core/verification/evidence.ts';
import type { RunEvent } from '../api/types.ts';
import { applyRunEvent, emptyLiveRun } from './live-run.ts';
import { looseRunEvent } from './loose-run-event.ts';
import { applySubagentUpdate, applyVerdict, mergeApiList } from './subagent-panel.ts';
import { verdictFromEvent, verdictFromResultText, verdictFromStored } from './verdict.ts';

function verification(seq: number, verdict: string, final: boolean, flags: string[] = []): RunEvent {
  return looseRunEvent(
    'verification',
    {
      run_id: 'child_1',
      kind: 'subagent',
      verdict,
      reasons: verdict === 'satisfied' ? [] : ['The summary has no word count', 'Too long'],
      evidence: { flags },
      revision: final ? 1 : 0,
      grader_run_id: `grader_${seq}`,
      final,
    },
    { runId: 'parent', seq },
  );
}

const payloadOf = (event: RunEvent) => (event as Extract<RunEvent, { type: 'verification' }>).payload;

describe('verdicts', () => {
  it('keeps the latest verdict per child run in the live view: needs revision, then the final one', () => {
    let view = applyRunEvent(
      emptyLiveRun('parent'),
      verification(1, 'needs_revision', false, ['no_tool_calls']),
    );
    expect(view.verdicts?.child_1).toEqual({
      verdict: 'needs_revision',
      reasons: ['The summary has no word count', 'Too long'],
      flags: ['no_tool_calls'],
      final: false,
      revision: 0,
      graderRunId: 'grader_1',
    });
    view = applyRunEvent(view, verification(2, 'satisfied', true));
    expect(view.verdicts?.child_1).toMatchObject({
      verdict: 'satisfied',
      final: true,
      reasons: [],
      flags: [],
    });
    // A replayed event changes nothing.
    expect(applyRunEvent(view, verification(1, 'needs_revision', false))).toBe(view);
  });

  it('shows only the evidence flags a reader acts on', () => {
    const view = verdictFromEvent(
      payloadOf(verification(1, 'failed', true, ['unreturned_children', 'budget_exhausted', 'other'])),
    );
    expect(view.flags).toEqual(['unreturned_children', 'budget_exhausted']);
  });

  it('shows every flag the server sends, so a flag added there is not silently dropped here', () => {
    const view = verdictFromEvent(payloadOf(verification(1, 'failed', true, [...EVIDENCE_FLAGS])));
    expect(view.flags).toEqual([...EVIDENCE_FLAGS]);
  });

  it('puts the verdict on the judged child card and keeps it across a panel reload', () => {
    let entries = applySubagentUpdate([], { run_id: 'child_1', status: 'running' }, 'parent');
    entries = applySubagentUpdate(entries, { run_id: 'child_2', status: 'running' }, 'parent');
    entries = applyVerdict(
      entries,
      'child_1',
      verdictFromEvent(payloadOf(verification(1, 'needs_revision', false))),
    );
    expect(entries.find((entry) => entry.run_id === 'child_1')?.verdict?.verdict).toBe('needs_revision');
    expect(entries.find((entry) => entry.run_id === 'child_2')?.verdict).toBeUndefined();
    const reloaded = mergeApiList(
      entries,
      entries.map(
        ({ verdict: _verdict, latest: _latest, liveSeq: _seq, pendingText: _text, ...entry }) => entry,
      ),
    );
    expect(reloaded.find((entry) => entry.run_id === 'child_1')?.verdict?.final).toBe(false);
  });

  it("a reloaded panel shows each card's stored verdict, its reasons as listed (a reason may contain '; ')", () => {
    const [card] = applySubagentUpdate([], { run_id: 'child_1', status: 'completed' }, 'parent');
    if (!card) throw new Error('no card');
    const { verdict: _verdict, latest: _latest, liveSeq: _seq, pendingText: _text, ...listed } = card;
    const stored = {
      verdict: 'needs_revision' as const,
      reasons: ['Add the count; at the end', 'Too long'],
      revisions: 0,
      flags: ['no_tool_calls', 'remote_reported', 'tool_failures'] as (
        'no_tool_calls' | 'remote_reported' | 'tool_failures'
      )[],
    };
    const [reloaded] = mergeApiList([], [{ ...listed, verification: stored }]);
    expect(reloaded?.verdict).toEqual({
      verdict: 'needs_revision',
      reasons: ['Add the count; at the end', 'Too long'],
      flags: ['no_tool_calls', 'remote_reported', 'tool_failures'],
      final: true,
      revision: 0,
      graderRunId: null,
    });
    expect(verdictFromStored({ ...stored, verdict: 'unverified' })).toBeNull();
    expect(verdictFromStored(null)).toBeNull();
  });

  it('reads the verdict a stored task result ends with', () => {
    const output =
      'Summary text\n\n[evidence] 1 model calls; no tool calls; 812 tokens; flags: no_tool_calls\n' +
      '[verification] needs_revision: The summary has no word count; Too long';
    expect(verdictFromResultText(output)).toMatchObject({
      verdict: 'needs_revision',
      reasons: ['The summary has no word count', 'Too long'],
      flags: ['no_tool_calls'],
      final: true,
    });
    expect(
      verdictFromResultText(
        'ok\n\n[evidence] 2 model calls; tools: ls×1; 5 tokens\n[verification] satisfied',
      ),
    ).toMatchObject({
      verdict: 'satisfied',
      reasons: [],
      flags: [],
    });
    expect(verdictFromResultText('ok\n[verification] unverified')).toBeNull();
    expect(verdictFromResultText('no footer')).toBeNull();
    expect(verdictFromResultText(undefined)).toBeNull();
  });

  it('reads the verification object subagent_await answers', () => {
    expect(
      verdictFromResultText({
        status: 'completed',
        verification: {
          verdict: 'failed',
          reasons: ['Wrong file'],
          evidence:
            '[evidence] 1 model calls; no tool calls; 3 tokens; flags: no_tool_calls, budget_exhausted',
        },
      }),
    ).toMatchObject({
      verdict: 'failed',
      reasons: ['Wrong file'],
      flags: ['no_tool_calls', 'budget_exhausted'],
    });
    expect(verdictFromResultText({ status: 'running' })).toBeNull();
  });
});
