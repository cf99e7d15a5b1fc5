import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../../core/ports/event-bus.js';
import { isTerminalStatus } from '../../../core/records/run.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { SLOW } from '../../../../test/helpers/runtime/use-subagent-world.js';
import { awaitRunsTerminal } from './await-runs-terminal.js';
import { watchRunEnds } from './watch-run-ends.js';

const FAST = `rules:\n  - steps:\n      - text: "fast {{input}}"\n`;
/** Slow enough to be running at the first read, quick enough for a test. */
const BRIEF = `rules:\n  - steps:\n      - delay_ms: 300\n        text: "brief {{input}}"\n`;

/** Counts the harness storage's `runs.getMany` calls (the batch reads of a wait) from now on. */
function countBatchReads(harness: RuntimeHarness): { count: number } {
  const reads = { count: 0 };
  const getMany = harness.storage.runs.getMany.bind(harness.storage.runs);
  harness.storage.runs.getMany = (list) => ((reads.count += 1), getMany(list));
  return reads;
}

describe('awaitRunsTerminal', () => {
  let h: RuntimeHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Starts one root run per model (each in its own conversation) and returns their ids. */
  async function start(
    models: ('fast' | 'slow' | 'brief')[],
  ): Promise<{ harness: RuntimeHarness; ids: string[] }> {
    const harness = await createRuntimeHarness({ scenarios: { fast: FAST, slow: SLOW, brief: BRIEF } });
    h = harness;
    const user = await harness.createUser('ann');
    const ids: string[] = [];
    for (const model of models) {
      const agent = await harness.createAgent(user, `${model}-${ids.length}`, { model: `scripted:${model}` });
      const conversation = await harness.createConversation(user, agent);
      ids.push((await harness.runs.postMessage(user, conversation.id, { content: 'go' })).run.id);
    }
    return { harness, ids };
  }

  it('waits for all, reading the batch twice however many runs it names', async () => {
    const { harness, ids } = await start(['fast', 'fast', 'fast']);
    const reads = countBatchReads(harness);
    const waited = await awaitRunsTerminal(harness.storage, harness.bus, [...ids, ids[0] as string], {
      mode: 'all',
      timeoutMs: 20_000,
    });
    expect(waited.timed_out).toBe(false);
    expect(waited.runs.map((run) => run.id)).toEqual([...ids, ids[0]]);
    expect(waited.runs.every((run) => run.status === 'completed')).toBe(true);
    expect(reads.count).toBeLessThanOrEqual(2);
    // Already terminal: one read, no wait.
    reads.count = 0;
    const again = await awaitRunsTerminal(harness.storage, harness.bus, ids, { mode: 'all', timeoutMs: 1 });
    expect(again.runs.every((run) => run.status === 'completed')).toBe(true);
    expect(reads.count).toBe(1);
  });

  it('takes each ended row from its `end` when delivered in-process, and reads it when the end is a copy', async () => {
    const { harness, ids } = await start(['brief', 'brief']);
    const reads = countBatchReads(harness);
    const waited = await awaitRunsTerminal(harness.storage, harness.bus, ids, {
      mode: 'all',
      timeoutMs: 20_000,
    });
    // The first read found both running; their ends carried their rows, so no second read.
    expect(reads.count).toBe(1);
    expect(waited.runs.map((run) => run.status)).toEqual(['completed', 'completed']);
    for (const run of waited.runs) expect(run).toEqual(await harness.storage.runs.get(run.id));

    // An end that crossed a process boundary (Redis; here a structured clone) is a new object: one more read.
    const [first] = waited.runs;
    const user = first && (await harness.storage.users.get(first.user_id));
    if (!first || !user) throw new Error('the first run and its user were just read');
    const next = await harness.runs.postMessage(user, first.conversation_id, { content: 'again' });
    const copying: EventBus = {
      ...harness.bus,
      subscribe: (runId, listener) =>
        harness.bus.subscribe(runId, (event) => listener(structuredClone(event))),
    };
    reads.count = 0;
    const copied = await awaitRunsTerminal(harness.storage, copying, [next.run.id], {
      mode: 'all',
      timeoutMs: 20_000,
    });
    expect(reads.count).toBe(2);
    expect(copied.runs[0]?.status).toBe('completed');
  });

  it('reads nothing when watched since before the end and handed the created rows', async () => {
    const { harness, ids } = await start(['brief']);
    const watch = await watchRunEnds(harness.bus, ids);
    const created = await harness.storage.runs.getMany(ids);
    const reads = countBatchReads(harness);
    try {
      const waited = await awaitRunsTerminal(harness.storage, harness.bus, ids, {
        mode: 'all',
        timeoutMs: 20_000,
        since: { watch, created },
      });
      expect(reads.count).toBe(0);
      expect(waited.runs[0]).toEqual(await harness.storage.runs.get(ids[0] as string));
      expect(waited.runs[0]?.status).toBe('completed');
    } finally {
      await watch.close();
    }
  });

  it('returns the ended row when the end arrives while its first read is in flight', async () => {
    const { harness, ids } = await start(['slow']);
    const runId = ids[0] as string;
    const started = await harness.storage.runs.get(runId);
    const user = started && (await harness.storage.users.get(started.user_id));
    if (!user) throw new Error('the run and its user were just made');
    // The wait's first read sees the run running; the run ends, and its `end` reaches the watch, before that
    // read answers (the race a scale-out long-poll met: the answer was the stale row, `wait_timed_out` false).
    const getMany = harness.storage.runs.getMany.bind(harness.storage.runs);
    let first = true;
    harness.storage.runs.getMany = async (list) => {
      const rows = await getMany(list);
      if (!first) return rows;
      first = false;
      const heard = new Promise<void>((resolve) => {
        void harness.bus.subscribe(runId, (event) => event.type === 'end' && resolve());
      });
      await harness.runs.cancel(user, runId);
      await heard;
      return rows;
    };
    const waited = await awaitRunsTerminal(harness.storage, harness.bus, [runId], {
      mode: 'all',
      timeoutMs: 20_000,
    });
    expect(waited.timed_out).toBe(false);
    expect(waited.runs[0]?.status).toBe('cancelled');
    expect(waited.runs[0]).toEqual(await getMany([runId]).then((rows) => rows[0]));
  });

  it('returns at the first end in `any` mode, the others as they are', async () => {
    const { harness, ids } = await start(['slow', 'fast']);
    const waited = await awaitRunsTerminal(harness.storage, harness.bus, ids, {
      mode: 'any',
      timeoutMs: 20_000,
    });
    expect(waited.timed_out).toBe(false);
    expect(waited.first?.id).toBe(ids[1]);
    expect(waited.runs[1]?.status).toBe('completed');
    expect(isTerminalStatus(waited.runs[0]?.status ?? 'completed')).toBe(false);
  });

  it('reports a timeout with the runs as they are, and ends on the caller’s signal with its reason', async () => {
    const { harness, ids } = await start(['slow', 'fast']);
    const waited = await awaitRunsTerminal(harness.storage, harness.bus, ids, {
      mode: 'all',
      timeoutMs: 300,
    });
    expect(waited.timed_out).toBe(true);
    expect(waited.runs[0]?.status).not.toBe('completed');

    const controller = new AbortController();
    const reason = new Error('parent cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(
      awaitRunsTerminal(harness.storage, harness.bus, ids, {
        mode: 'all',
        timeoutMs: 20_000,
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
  });

  it('takes its listener off the caller’s signal however the wait ends, so a run’s signal does not gather them', async () => {
    const { harness, ids } = await start(['slow', 'fast']);
    const signal = new AbortController().signal;
    await awaitRunsTerminal(harness.storage, harness.bus, ids, { mode: 'all', timeoutMs: 100, signal });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await awaitRunsTerminal(harness.storage, harness.bus, ids, { mode: 'any', timeoutMs: 20_000, signal });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('refuses an id that names no run', async () => {
    const { harness, ids } = await start(['fast']);
    await expect(
      awaitRunsTerminal(harness.storage, harness.bus, [...ids, 'run_missing'], {
        mode: 'all',
        timeoutMs: 1_000,
      }),
    ).rejects.toMatchObject({ code: 'run_not_found' });
  });
});
