import { describe, expect, it } from 'vitest';
import type { Run, ThreadMessage } from '../api/types.ts';
import { buildTranscript } from './build-transcript.ts';
import { emptyLiveRun, type LiveRun } from './live-run.ts';

let seq = 0;
function row(runId: string | null, step: number, message: ThreadMessage['message']): ThreadMessage {
  seq += 1;
  return { thread_id: 'thr', seq, run_id: runId, step, message, created_at: '2030-01-01T00:00:00.000Z' };
}

function helloThread(): ThreadMessage[] {
  seq = 0;
  return [
    row('r1', 0, { role: 'user', content: 'hello' }),
    row('r1', 1, {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Writing.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'write_file', input: { path: 'a.md' } },
      ],
    }),
    row('r1', 1, {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'write_file',
          output: { type: 'text', value: 'Created' },
        },
      ],
    }),
    row('r1', 2, { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }),
  ];
}

function run(id: string, status: Run['status'], error: Run['error'] = null): Run {
  return { id, status, error } as Run;
}

describe('buildTranscript', () => {
  it('makes one user turn and one assistant turn per run, with tool results on their calls', () => {
    const turns = buildTranscript({ messages: helloThread() });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(turns[1]?.items).toEqual([
      { kind: 'text', text: 'Writing.' },
      {
        kind: 'tool',
        toolCallId: 'c1',
        name: 'write_file',
        args: { path: 'a.md' },
        result: { output: 'Created', isError: false },
      },
      { kind: 'text', text: 'Done.' },
    ]);
  });

  it('shows a stored summary as "earlier turns summarised" where it happened, the originals kept above', () => {
    const thread = helloThread();
    thread.push(
      row('r2', 0, { role: 'user', content: 'more' }),
      row('r2', 1, {
        role: 'user',
        content: 'Summary of the earlier part of this conversation…',
        providerOptions: { troupe: { compaction: { kept: 1, summarised: 4 } } },
      }),
      row('r2', 1, { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }] }),
    );
    const turns = buildTranscript({ messages: thread });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'notice', 'assistant']);
    expect(turns[3]?.items).toEqual([
      {
        kind: 'notice',
        tone: 'info',
        code: 'context_compacted',
        text: "Earlier turns summarised to fit the model's context window (4 messages); the originals stay above.",
      },
    ]);
  });

  it('marks error tool results', () => {
    seq = 0;
    const turns = buildTranscript({
      messages: [
        row('r1', 1, {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c9', toolName: 'read_file', input: {} }],
        }),
        row('r1', 1, {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c9',
              toolName: 'read_file',
              output: { type: 'error-text', value: 'nope' },
            },
          ],
        }),
      ],
    });
    expect(turns[0]?.items[0]).toMatchObject({ result: { output: 'nope', isError: true } });
  });

  it('marks a stored result whose outcome is unknown (an external call cut off by a stopped server)', () => {
    seq = 0;
    const turns = buildTranscript({
      messages: [
        row('r1', 1, {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c7', toolName: 'mcp__mail__send', input: {} }],
        }),
        row('r1', 1, {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c7',
              toolName: 'mcp__mail__send',
              output: { type: 'error-text', value: 'The server stopped while this call ran' },
              providerOptions: { troupe: { outcome: 'unknown' } },
            },
          ],
        }),
      ],
    });
    expect(turns[0]?.items[0]).toMatchObject({ result: { isError: true, outcome: 'unknown' } });
  });

  it('shows a live run from its stream only: persisted steps of that run are not doubled', () => {
    const live: LiveRun = { ...emptyLiveRun('r1'), lastSeq: 9, items: [{ kind: 'text', text: 'streamed' }] };
    const turns = buildTranscript({ messages: helloThread(), liveRuns: new Map([['r1', live]]) });
    expect(turns.map((turn) => [turn.role, turn.live ?? false])).toEqual([
      ['user', false],
      ['assistant', true],
    ]);
    expect(turns[1]?.items).toEqual([{ kind: 'text', text: 'streamed' }]);
  });

  it('keeps an ended live run right after its own message, with how it ended, when later messages follow', () => {
    const messages = [...helloThread(), row('r2', 0, { role: 'user', content: 'next' })];
    const ended: LiveRun = {
      ...emptyLiveRun('r1'),
      lastSeq: 5,
      items: [{ kind: 'text', text: 'partial' }],
      end: {
        status: 'cancelled',
        output: null,
        error: { type: 'cancelled', message: 'The run was cancelled' },
        usage: null,
      },
    };
    const turns = buildTranscript({ messages, liveRuns: new Map([['r1', ended]]) });
    expect(turns.map((turn) => turn.key)).toEqual(['msg:1', 'live:r1', 'msg:5']);
    expect(turns[1]?.items.at(-1)).toMatchObject({
      kind: 'notice',
      code: 'cancelled',
      text: 'Run cancelled: The run was cancelled',
    });
  });

  it('adds a notice after a failed, cancelled or interrupted run, never for a completed one', () => {
    const messages = [...helloThread(), row('r2', 0, { role: 'user', content: 'again' })];
    const turns = buildTranscript({
      messages,
      runs: [run('r2', 'failed', { type: 'model_call_failed', message: 'boom' }), run('r1', 'completed')],
    });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'notice']);
    expect(turns[3]?.items[0]).toMatchObject({
      code: 'model_call_failed',
      text: 'Run failed: boom',
      tone: 'error',
    });
  });

  it('marks the text a cancelled run stored before it ended mid-answer', () => {
    seq = 0;
    const turns = buildTranscript({
      messages: [
        row('r1', 0, { role: 'user', content: 'slow please' }),
        row('r1', 1, {
          role: 'assistant',
          content: [{ type: 'text', text: 'You asked for some' }],
          providerOptions: { troupe: { partial: true, run_status: 'cancelled' } },
        }),
      ],
      runs: [run('r1', 'cancelled', { type: 'cancelled', message: 'The run was cancelled' })],
    });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'notice']);
    expect(turns[1]?.items).toEqual([{ kind: 'text', text: 'You asked for some', partial: 'cancelled' }]);
    expect(buildTranscript({ messages: helloThread() })[1]?.items[0]).not.toHaveProperty('partial');
  });

  it('shows a just-posted message before its stream when the messages are not reloaded yet', () => {
    const live = emptyLiveRun('r3');
    const turns = buildTranscript({
      messages: helloThread(),
      liveRuns: new Map([['r3', live]]),
      liveInputs: new Map([['r3', 'third']]),
    });
    expect(turns.slice(-2).map((turn) => turn.key)).toEqual(['input:r3', 'live:r3']);
  });
});
