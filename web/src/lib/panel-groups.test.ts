import { describe, expect, it } from 'vitest';
import type { Run } from '../api/types.ts';
import { entryLabels, groupByTurn, panelTotals } from './panel-groups.ts';
import type { PanelEntry } from './subagent-panel.ts';

function entry(
  runId: string,
  parent: string,
  status: PanelEntry['status'],
  name = 'Researcher',
  tokens?: number,
): PanelEntry {
  return {
    run_id: runId,
    kind: 'subagent',
    slug: name.toLowerCase(),
    name,
    status,
    child_thread_id: null,
    child_conversation_id: null,
    parent_run_id: parent,
    parent_tool_call_id: null,
    description: null,
    progress: null,
    result: null,
    created_at: `2030-01-01T00:00:0${runId.slice(-1)}.000Z`,
    started_at: null,
    finished_at: null,
    usage:
      tokens === undefined
        ? null
        : {
            input_tokens: tokens,
            output_tokens: 0,
            total_tokens: tokens,
            model_calls: 1,
            aborted_model_calls: 0,
          },
    latest: null,
    liveSeq: 0,
    pendingText: '',
  };
}

const run = (id: string, at: string, status: Run['status']) =>
  ({ id, created_at: at, status, input: { message: `input of ${id}` } }) as Run;

describe('status panel groups', () => {
  const entries = [
    entry('c1', 'r1', 'completed', 'Researcher', 52),
    entry('c2', 'r2', 'running'),
    entry('c3', 'r2', 'completed', 'Summarizer', 8),
  ];
  const runs = [
    run('r2', '2030-01-01T00:01:00.000Z', 'running'),
    run('r1', '2030-01-01T00:00:00.000Z', 'completed'),
  ];

  it('groups by turn, newest first; a turn is active while its run or a child is', () => {
    const groups = groupByTurn(entries, runs);
    expect(
      groups.map((group) => [group.turn, group.active, group.entries.map((item) => item.run_id)]),
    ).toEqual([
      [2, true, ['c2', 'c3']],
      [1, false, ['c1']],
    ]);
    expect(groups[1]?.input).toBe('input of r1');
    expect(groupByTurn(entries).map((group) => group.turn)).toEqual([null, null]);
  });

  it('labels repeated subagents uniquely and sums tokens', () => {
    expect([...entryLabels(entries).values()]).toEqual(['Researcher #1', 'Researcher #2', 'Summarizer']);
    expect(panelTotals(entries)).toEqual({ runs: 3, active: 1, total_tokens: 60, model_calls: 2 });
  });
});
