import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventType, SubagentRunEntry } from '../api/types.ts';
import {
  applyChildEvent,
  applySubagentUpdate,
  mergeApiList,
  panelEntryFromApi,
  type PanelEntry,
} from './subagent-panel.ts';
import { textLine, toolCallLine } from './text.ts';
import { looseRunEvent } from './loose-run-event.ts';

function apiEntry(overrides: Partial<SubagentRunEntry> = {}): SubagentRunEntry {
  return {
    run_id: 'child_1',
    kind: 'subagent',
    slug: 'researcher',
    name: 'Researcher',
    status: 'running',
    child_thread_id: 'subagent_abc',
    child_conversation_id: 'cnv_child',
    parent_run_id: 'parent',
    parent_tool_call_id: 'call_1',
    description: 'Find the notes',
    progress: { last_seq: 4, items: [{ seq: 4, kind: 'tool_call', content: 'Calling ls({})' }] },
    result: null,
    created_at: '2030-01-01T00:00:00.000Z',
    started_at: '2030-01-01T00:00:00.100Z',
    finished_at: null,
    usage: null,
    ...overrides,
  };
}

function childEvent(seq: number, type: RunEventType, payload: Record<string, unknown>): RunEvent {
  return looseRunEvent(type, payload, { runId: 'child_1', seq, createdAt: '2030-01-01T00:00:05.000Z' });
}

describe('status panel state', () => {
  it('creates a card from a subagent_update and moves it through statuses', () => {
    let entries: PanelEntry[] = [];
    entries = applySubagentUpdate(
      entries,
      {
        run_id: 'child_1',
        status: 'pending',
        slug: 'researcher',
        name: 'Researcher',
        description: 'Find',
        child_thread_id: 'subagent_abc',
      },
      'parent',
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ status: 'pending', parent_run_id: 'parent', result: null });
    entries = applySubagentUpdate(entries, { run_id: 'child_1', status: 'running' }, 'parent');
    entries = applySubagentUpdate(
      entries,
      { run_id: 'child_1', status: 'failed', error: { type: 'model_call_failed', message: 'boom' } },
      'parent',
    );
    expect(entries[0]).toMatchObject({
      status: 'failed',
      result: { error: { message: 'boom' } },
      slug: 'researcher',
    });
    expect(entries[0]?.finished_at).not.toBeNull();
  });

  it('never moves a card out of a terminal status on a stale update or list', () => {
    let entries = applySubagentUpdate([], { run_id: 'child_1', status: 'cancelled' }, 'parent');
    entries = applySubagentUpdate(entries, { run_id: 'child_1', status: 'running' }, 'parent');
    expect(entries[0]?.status).toBe('cancelled');
    entries = mergeApiList(entries, [apiEntry({ status: 'running' })]);
    expect(entries[0]?.status).toBe('cancelled');
  });

  it('keeps cards the list does not know yet, and takes the list as the base otherwise', () => {
    const live = applySubagentUpdate([], { run_id: 'child_2', status: 'running' }, 'parent');
    const merged = mergeApiList(live, [apiEntry()]);
    expect(merged.map((entry) => entry.run_id).sort()).toEqual(['child_1', 'child_2']);
    expect(merged.find((entry) => entry.run_id === 'child_1')?.latest).toBe('Calling ls({})');
  });

  it('shows the latest progress from the child stream: last tool call as name(args…) or last text, ≤ 80 chars', () => {
    let entries = [panelEntryFromApi(apiEntry())];
    // Events the list already summarised are skipped.
    entries = applyChildEvent(entries, 'child_1', childEvent(3, 'tool_call', { name: 'old', args: {} }));
    expect(entries[0]?.latest).toBe('Calling ls({})');
    const longArgs = { path: 'notes/'.repeat(30) };
    entries = applyChildEvent(
      entries,
      'child_1',
      childEvent(5, 'tool_call', { name: 'read_file', args: longArgs }),
    );
    expect(entries[0]?.latest).toBe(toolCallLine('read_file', longArgs));
    expect(entries[0]?.latest?.length).toBeLessThanOrEqual(80);
    expect(entries[0]?.latest).toMatch(/^read_file\(\{"path":"notes.*…\)$/);
    entries = applyChildEvent(entries, 'child_1', childEvent(6, 'message_delta', { text: 'I found ' }));
    entries = applyChildEvent(
      entries,
      'child_1',
      childEvent(7, 'message_delta', { text: 'three notes '.repeat(10) }),
    );
    expect(entries[0]?.latest).toBe(textLine(`I found ${'three notes '.repeat(10)}`));
    expect(entries[0]?.latest?.length).toBeLessThanOrEqual(80);
    entries = applyChildEvent(
      entries,
      'child_1',
      childEvent(8, 'end', { status: 'completed', output: 'Three notes.' }),
    );
    expect(entries[0]).toMatchObject({
      status: 'completed',
      result: { output: 'Three notes.', error: null },
    });
  });

  it("says a child's model call is retried, and drops the text of the failed attempt", () => {
    let entries = [panelEntryFromApi(apiEntry())];
    entries = applyChildEvent(entries, 'child_1', childEvent(5, 'message_delta', { text: 'Half an ans' }));
    entries = applyChildEvent(
      entries,
      'child_1',
      childEvent(6, 'model_retry', {
        attempt: 1,
        max_retries: 4,
        reason: 'overloaded',
        status: 529,
        wait_ms: 500,
        model: 'anthropic:claude',
        discarded_chars: 11,
      }),
    );
    expect(entries[0]?.latest).toBe('anthropic:claude failed (overloaded, HTTP 529): retry 1 of 4 in 0.5 s.');
    entries = applyChildEvent(entries, 'child_1', childEvent(7, 'message_delta', { text: 'A whole answer' }));
    expect(entries[0]?.latest).toBe(textLine('A whole answer'));
  });

  it('continues the text the list summarised when the child stream resumes mid-message', () => {
    const resumed = apiEntry({
      progress: {
        last_seq: 10,
        items: [{ seq: 10, kind: 'assistant_message', content: 'Research notes on: the t' }],
      },
    });
    const entries = applyChildEvent(
      [panelEntryFromApi(resumed)],
      'child_1',
      childEvent(11, 'message_delta', { text: 'eam notes' }),
    );
    expect(entries[0]?.latest).toBe('Research notes on: the team notes');
  });

  it('a cancelled child ends as cancelled, not completed', () => {
    let entries = [panelEntryFromApi(apiEntry())];
    entries = applyChildEvent(
      entries,
      'child_1',
      childEvent(9, 'end', {
        status: 'cancelled',
        error: { type: 'cancelled', message: 'Cancelled by the user' },
      }),
    );
    expect(entries[0]).toMatchObject({
      status: 'cancelled',
      result: { error: { message: 'Cancelled by the user' } },
    });
  });
});

describe('one-line previews', () => {
  it('keeps short lines whole and closes a cut tool call with "…)"', () => {
    expect(toolCallLine('ls', { path: '.' })).toBe('ls({"path":"."})');
    const line = toolCallLine('grep', { pattern: 'x'.repeat(200) });
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line.endsWith('…)')).toBe(true);
    expect(textLine('short\n text')).toBe('short text');
    expect(textLine('y'.repeat(100)).startsWith('…')).toBe(true);
  });
});
