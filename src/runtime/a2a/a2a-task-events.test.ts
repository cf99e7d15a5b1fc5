import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { storedRunEvent, type RunEvent, type RunEventType } from '../../core/records/run-event.js';
import type { Run } from '../../core/records/run.js';
import { translateRunEvents } from './a2a-task-events.js';

const run = { id: 'run_1', conversation_id: 'cnv_1', status: 'completed', output: 'The answer.' } as Run;

function events(...items: [RunEventType, Record<string, unknown>][]): AsyncIterable<RunEvent> {
  const all: RunEvent[] = items.map(([type, payload], index) =>
    storedRunEvent({ run_id: run.id, seq: index + 1, type, payload, created_at: '2030-01-01T00:00:00.000Z' }),
  );
  return {
    [Symbol.asyncIterator]: () => {
      const iterator = all[Symbol.iterator]();
      return { next: () => Promise.resolve(iterator.next()) };
    },
  };
}

describe('translateRunEvents', () => {
  it("replaces a retried model call's failed attempt in the output artifact instead of appending to it", async () => {
    const updates: { text: string; append: boolean }[] = [];
    for await (const update of translateRunEvents({
      run,
      state: TaskState.TASK_STATE_WORKING,
      events: events(
        ['message_delta', { text: 'A doomed ' }],
        ['model_retry', { attempt: 1, reason: 'stream_cut', wait_ms: 10, discarded_chars: 9 }],
        ['message_delta', { text: 'The ' }],
        ['message_delta', { text: 'answer.' }],
      ),
      pending: () => Promise.resolve([]),
      finish: () => Promise.resolve({ run, pending: [] }),
    })) {
      if (update.payload?.$case !== 'artifactUpdate') continue;
      const { artifact, append } = update.payload.value;
      const text = artifact?.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      updates.push({ text: text ?? '', append });
    }
    expect(updates).toEqual([
      { text: 'A doomed ', append: false },
      { text: 'The ', append: false },
      { text: 'answer.', append: true },
    ]);
  });
});
