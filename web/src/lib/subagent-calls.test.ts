import { describe, expect, it } from 'vitest';
import { childCallTarget, childSlugsFromCalls, summariseAwait } from './subagent-calls.ts';
import { truncateEndAtWord, textLine } from './text.ts';
import { clockEnd, isWaitingToResume } from './run-phase.ts';

describe('child calls', () => {
  it('finds the child a call names, from its arguments or its result', () => {
    expect(childCallTarget('subagent_start', { subagent_slug: 'researcher' }, { run_id: 'r1' })).toEqual({
      runId: 'r1',
      slug: 'researcher',
    });
    expect(childCallTarget('delegate', { expert: 'analyst' }, undefined)).toEqual({
      runId: null,
      slug: 'analyst',
    });
  });

  it('names each child by the slug of the call that started it, first call wins', () => {
    const slugs = childSlugsFromCalls([
      {
        key: 'a',
        role: 'assistant',
        runId: 'root',
        items: [
          { kind: 'text', text: 'Starting.' },
          {
            kind: 'tool',
            toolCallId: 't1',
            name: 'subagent_start',
            args: { subagent_slug: 'researcher' },
            result: { output: '{"run_id":"r1"}', isError: false },
          },
          { kind: 'tool', toolCallId: 't2', name: 'subagent_status', args: { run_id: 'r1' } },
          {
            kind: 'tool',
            toolCallId: 't3',
            name: 'delegate',
            args: { expert: 'analyst' },
            result: { output: { run_id: 'r2' }, isError: false },
          },
          { kind: 'tool', toolCallId: 't4', name: 'subagent_await', args: { run_ids: ['r1'] } },
        ],
      },
    ]);
    expect([...slugs]).toEqual([
      ['r1', 'researcher'],
      ['r2', 'analyst'],
    ]);
  });

  it('summarises subagent_await, for several runs or one, from an object or JSON text', () => {
    const all = summariseAwait({
      mode: 'all',
      wait_timed_out: false,
      runs: [
        { status: 'completed', run_id: 'a', result: { output: 'Done.', usage: { total_tokens: 9 } } },
        { status: 'cancelled', run_id: 'b', result: { error: { type: 'cancelled', message: 'Stopped' } } },
      ],
    });
    expect(all?.children).toEqual([
      { run_id: 'a', status: 'completed', output: 'Done.', error: null, tokens: 9, timedOut: false },
      { run_id: 'b', status: 'cancelled', output: '', error: 'Stopped', tokens: null, timedOut: false },
    ]);
    expect(
      summariseAwait(JSON.stringify({ status: 'running', run_id: 'c', wait_timed_out: true })),
    ).toMatchObject({
      mode: 'one',
      timedOut: true,
    });
    expect(summariseAwait('not json')).toBeUndefined();
  });
});

describe('texts and clocks', () => {
  it('cuts at word boundaries', () => {
    expect(truncateEndAtWord('alpha beta gamma delta', 14)).toBe('alpha beta…');
    const line = textLine('one two three four five six seven eight nine ten eleven twelve', 30);
    expect(line.startsWith('…')).toBe(true);
    expect([
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'ten',
      'eleven',
      'twelve',
    ]).toContain(line.slice(1).split(' ')[0]);
  });

  it('pauses the clock of a run waiting to be resumed', () => {
    const handedBack = { status: 'pending' as const, started_at: 'S', finished_at: null, updated_at: 'U' };
    expect(isWaitingToResume(handedBack)).toBe(true);
    expect(clockEnd(handedBack)).toBe('U');
    expect(clockEnd({ ...handedBack, status: 'running' })).toBeNull();
    expect(isWaitingToResume({ ...handedBack, started_at: null })).toBe(false);
  });
});
