import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { readsDuring } from '../../../../test/helpers/runtime/reads-during.js';
import { RunHandoffs } from './run-handoffs.js';

function entry(seq: number, content: unknown): ThreadMessage {
  return {
    thread_id: 'thr-1',
    seq,
    run_id: 'run-1',
    step: 0,
    message: { role: 'user', content } as ThreadMessage['message'],
    created_at: '2030-01-01T00:00:00.000Z',
    usage: null,
  };
}

/** The run as its first attempt claimed it. */
const first = (id: string) => ({ id, attempt: 1 });

describe('RunHandoffs', () => {
  it('hands over a whole first thread once, as a copy a read would return', () => {
    const handoffs = new RunHandoffs();
    const original = entry(1, 'hello');
    handoffs.offer('run-1', [original]);
    const taken = handoffs.take(first('run-1'));
    expect(taken).toEqual({ thread: [original] });
    expect(taken?.thread?.[0]?.message).not.toBe(original.message);
    expect(handoffs.take(first('run-1'))).toBeUndefined();
  });

  it('gives nothing to a later attempt, and drops the offer all the same', () => {
    const handoffs = new RunHandoffs();
    handoffs.offer('run-1', [entry(1, 'hello')]);
    expect(handoffs.take({ id: 'run-1', attempt: 2 })).toBeUndefined();
    expect(handoffs.take(first('run-1'))).toBeUndefined();
  });

  it('refuses a thread that had messages before, and a first message too large to hold', () => {
    const handoffs = new RunHandoffs();
    handoffs.offer('run-later-turn', [entry(7, 'second turn')]);
    handoffs.offer('run-large', [entry(1, 'x'.repeat(70_000))]);
    handoffs.offer('run-none', []);
    expect(handoffs.take(first('run-later-turn'))).toBeUndefined();
    expect(handoffs.take(first('run-large'))).toBeUndefined();
    expect(handoffs.take(first('run-none'))).toBeUndefined();
  });

  it('keeps only the newest offers when nobody takes them', () => {
    const handoffs = new RunHandoffs();
    for (let n = 0; n < 600; n++) handoffs.offer(`run-${n}`, [entry(1, `m${n}`)]);
    expect(handoffs.take(first('run-0'))).toBeUndefined();
    expect(handoffs.take(first('run-599'))).toBeDefined();
  });
});

const MAIN = `rules:
  - when: { contains: delegate }
    steps:
      - tool_calls: [{ name: task, args: { subagent_slug: helper, description: "look into {{input}}" } }]
      - text: "main done"
  - steps:
      - text: "heard: {{input}}"
`;
const HELPER = `rules:\n  - steps:\n      - text: "helper saw {{input}}"\n`;

describe('a run started in this process', () => {
  let h: RuntimeHarness | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
    h = undefined;
  });

  /** The threads, and the runs' attempt contexts, read from storage while `work` ran. */
  const threadAndContextReads = (storage: Storage, work: () => Promise<void>) =>
    readsDuring(storage, { threads: ['messages', 'list'], contexts: ['runs', 'attemptContext'] }, work);

  it('starts from the thread its creator wrote when that is its first message, and reads a longer one', async () => {
    h = await createRuntimeHarness({ scenarios: { main: MAIN, helper: HELPER } });
    const harness = h;
    const user = await harness.createUser('alice');
    await harness.createAgent(user, 'helper', { model: 'scripted:helper' }, { is_subagent: true });
    const main = await harness.createAgent(user, 'main', { model: 'scripted:main', subagents: ['helper'] });
    const conversation = await harness.createConversation(user, main);
    const ask = async (content: string) => {
      const { run } = await harness.runs.postMessage(user, conversation.id, { content });
      return (await harness.runs.await(user, run.id, 10_000)).run;
    };

    let second = await ask('delegate the first question');
    const secondReads = await threadAndContextReads(harness.storage, async () => {
      second = await ask('delegate the second question');
    });
    // The second turn's thread holds the first turn: it is read. The child's new thread is not, nor its
    // context: its start read the agent, user and project with its parent and wrote the rest.
    expect(second.error).toBeNull();
    expect(second.status).toBe('completed');
    expect(second.output).toBe('main done');
    expect(secondReads.threads).toEqual([conversation.thread_id]);
    const [child] = await harness.storage.runs.listChildren(second.id);
    expect(secondReads.contexts).toEqual([]);
    expect(child?.status).toBe('completed');
    expect(child?.output).toBe('helper saw look into delegate the second question');

    const fresh = await harness.createConversation(user, main);
    const reads = await threadAndContextReads(harness.storage, async () => {
      const { run } = await harness.runs.postMessage(user, fresh.id, { content: 'a new chat' });
      const ended = (await harness.runs.await(user, run.id, 10_000)).run;
      expect(ended.output).toBe('heard: a new chat');
    });
    expect(reads).toEqual({ threads: [], contexts: [] });
  });

  it('hands over the context as it would be read: the budget a message opened limits its run', async () => {
    h = await createRuntimeHarness({ scenarios: { main: MAIN, helper: HELPER } });
    const harness = h;
    const user = await harness.createUser('bob');
    const main = await harness.createAgent(user, 'main', { model: 'scripted:main' });
    const conversation = await harness.createConversation(user, main);
    let ended: Awaited<ReturnType<typeof harness.runs.await>>['run'] | undefined;
    const reads = await threadAndContextReads(harness.storage, async () => {
      const { run } = await harness.runs.postMessage(user, conversation.id, {
        content: 'one call only',
        budget: { model_calls: 0 },
      });
      ended = (await harness.runs.await(user, run.id, 10_000)).run;
    });
    expect(reads.contexts).toEqual([]);
    expect(ended?.status).toBe('failed');
    expect(ended?.error?.type).toBe('budget_exhausted');
  });
});
