import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelResponse, RecordedRequest } from '../helpers/models/fake-model-server.js';
import { openaiFaults } from '../helpers/models/provider-faults.js';
import { startModelFaultWorld, type ModelFaultWorld } from '../helpers/model-fault-world.js';

/**
 * Back-off as part of the run (issue 32), over real HTTP against the fake providers: cancel and wall time
 * end a wait at once with no further request, a 429 holds every caller of the provider, fallbacks take over,
 * the limits file holds every run, and a tree of 20 children of which a third meet 429s still completes.
 */
let world: ModelFaultWorld;

beforeAll(async () => {
  world = await startModelFaultWorld({
    // The OpenAI fake again under its own key, limited: the limits test has it to itself.
    limits: { 'openai-compatible:aside': { concurrency: 2 } },
  });
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('back-off is part of the run', () => {
  it('a cancel during a back-off ends the run at once, and no request follows it', async () => {
    world.script('patient', [openaiFaults.rateLimited(30)]);
    // Its own provider key: the 30 s pause this 429 sets holds no other test's calls.
    await world.createAgent('patient', { model: 'openai-compatible:paused:gpt-test' });
    const { runId } = await world.chat('patient');
    const retry = await world.waitForEvent(runId, (event) => event.type === 'model_retry');
    expect(retry.payload).toMatchObject({ reason: 'rate_limited', status: 429, wait_ms: 30_000 });
    const requestsAtCancel = world.requestsOf('patient').length;
    expect(requestsAtCancel).toBe(1);
    const started = Date.now();
    const cancelled = await world.server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5000);
    await sleep(500);
    expect(world.requestsOf('patient')).toHaveLength(requestsAtCancel);
  });

  it('a cancel committed above a child during its back-off stops its retry, with no signal and no cascade', async () => {
    world.script('elder', [
      {
        toolCalls: [
          { name: 'task', args: { subagent_slug: 'general-purpose', description: 'CHILD waiting' } },
        ],
      },
    ]);
    world.script('child', [openaiFaults.rateLimited(1)]);
    await world.createAgent('elder');
    const { runId } = await world.chat('elder');
    const storage = world.server.troupe.storage;
    let childId = '';
    for (const until = Date.now() + 15_000; childId === '' && Date.now() < until; await sleep(25)) {
      childId = (await storage.runs.listChildren(runId))[0]?.id ?? '';
    }
    await world.waitForEvent(childId, (event) => event.type === 'model_retry');
    // Only the database learns of it, as when another process commits the cancel.
    expect(
      await storage.runs.update(runId, { status: ['running'] }, { status: 'cancel_requested' }),
    ).toBeDefined();
    for (const until = Date.now() + 15_000; Date.now() < until; await sleep(50)) {
      if ((await storage.runs.get(childId))?.status === 'cancelled') break;
    }
    const child = await storage.runs.get(childId);
    expect(child?.status).toBe('cancelled');
    expect(child?.error?.type).toBe('execution_tree_closed');
    await sleep(300);
    expect(world.requestsOf('child')).toHaveLength(1);
  });

  it("the wait counts against the run's wall time: a back-off past it ends the run budget_exhausted", async () => {
    world.script('hurried', [openaiFaults.rateLimited(30)]);
    await world.createAgent('hurried', {
      model: 'openai-compatible:hurried:gpt-test',
      budget: { wall_ms: 1500 },
    });
    const started = Date.now();
    const { runId } = await world.chat('hurried');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error?.type).toBe('budget_exhausted');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(world.requestsOf('hurried')).toHaveLength(1);
  });

  it('a 429 holds every caller of the provider until its Retry-After, not only the call that met it', async () => {
    world.script('first', [openaiFaults.rateLimited(2)]);
    world.script('second', []);
    await world.createAgent('first');
    await world.createAgent('second');
    const first = await world.chat('first');
    await world.waitForEvent(first.runId, (event) => event.type === 'model_retry');
    const limitedAt = world.requestsOf('first')[0]?.at ?? 0;
    const second = await world.chat('second');
    expect((await world.awaitRun(second.runId)).status).toBe('completed');
    expect((await world.awaitRun(first.runId)).status).toBe('completed');
    // The second run's only request waited for the pause the first one's 429 set.
    const [secondRequest] = world.requestsOf('second');
    expect((secondRequest?.at ?? 0) - limitedAt).toBeGreaterThanOrEqual(1900);
  });
});

describe('fallbacks', () => {
  it('after the retries run out, the next model takes the call; the run records which model ran', async () => {
    world.script(
      'resilient',
      [openaiFaults.overloaded(), openaiFaults.overloaded()],
      (request: RecordedRequest): FakeModelResponse =>
        request.path.endsWith('/messages')
          ? { text: 'Answered by the fallback.', usage: { inputTokens: 11, outputTokens: 5 } }
          : { text: 'Answered by the primary.', usage: { inputTokens: 7, outputTokens: 3 } },
    );
    await world.createAgent('resilient', {
      model_fallbacks: ['anthropic:claude-test'],
      model_retry: { max_retries: 1 },
    });
    const { runId } = await world.chat('resilient');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('completed');
    expect(run.output).toBe('Answered by the fallback.');
    const events = await world.events(runId);
    expect(events.filter((event) => event.type === 'model_fallback').map((event) => event.payload)).toEqual([
      expect.objectContaining({
        from: 'openai:gpt-test',
        to: 'anthropic:claude-test',
        reason: 'overloaded',
        status: 503,
      }),
    ]);
    expect(events.find((event) => event.type === 'step')?.payload.model).toBe('anthropic:claude-test');
    expect(run.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 5,
      model_calls: 1,
      by_model: { 'anthropic:claude-test': { input_tokens: 11, output_tokens: 5, model_calls: 1 } },
    });
    // The run's next message starts on its own model again.
    const conversation = (await world.server.troupe.storage.runs.get(runId))?.conversation_id ?? '';
    const next = await world.server.api(`/api/conversations/${conversation}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'Again' }),
    });
    const { run: again } = (await next.json()) as { run: { id: string } };
    expect((await world.awaitRun(again.id)).output).toBe('Answered by the primary.');
  });

  it('a final failure does not fall back', async () => {
    world.script('strict', [openaiFaults.unauthorized()]);
    await world.createAgent('strict', { model_fallbacks: ['anthropic:claude-test'] });
    const { runId } = await world.chat('strict');
    const run = await world.awaitRun(runId);
    expect(run.status).toBe('failed');
    expect(world.requestsOf('strict')).toHaveLength(1);
  });
});

describe('limits and run trees', () => {
  it("the limits file holds every run's calls to a provider", async () => {
    world.script('limited', [], () => ({ delayMs: 300, text: 'Limited answer.' }));
    await world.createAgent('limited', { model: 'openai-compatible:aside:gpt-test' });
    const before = world.openai.requests.length;
    const runs = await Promise.all(Array.from({ length: 6 }, () => world.chat('limited')));
    const ended = await Promise.all(runs.map(({ runId }) => world.awaitRun(runId)));
    expect(ended.map((run) => run.status)).toEqual(Array.from({ length: 6 }, () => 'completed'));
    expect(world.openai.requests.length - before).toBe(6);
    expect(world.openai.maxInFlight).toBeLessThanOrEqual(2);
  });

  it('a tree of 20 children, a third of which meet 429s, still completes', async () => {
    const met = new Map<string, number>();
    world.script('boss', [
      {
        toolCalls: Array.from({ length: 20 }, (_, index) => ({
          name: 'task',
          args: { subagent_slug: 'general-purpose', description: `CHILD ${index}` },
        })),
      },
    ]);
    world.script('child', [], (request) => {
      const task = /CHILD (\d+)/.exec(JSON.stringify(request.body.messages))?.[1] ?? '';
      const seen = met.get(task) ?? 0;
      met.set(task, seen + 1);
      // Children 0, 3, 6, … meet a 429 on their first request.
      if (Number(task) % 3 === 0 && seen === 0) return openaiFaults.rateLimited(1);
      return { text: `Child ${task} done.` };
    });
    await world.createAgent('boss');
    // Twenty waits on the parent's signal at once are a fan-out, not a leak: no "possible memory leak" warning.
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const { runId } = await world.chat('boss', 'Split the work');
    const run = await world.awaitRun(runId).finally(() => process.off('warning', onWarning));
    expect(run.status).toBe('completed');
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    const children = await world.server.troupe.storage.runs.listChildren(runId);
    expect(children).toHaveLength(20);
    expect(children.every((child) => child.status === 'completed')).toBe(true);
    const retried = [];
    for (const child of children) {
      if ((await world.events(child.id)).some((event) => event.type === 'model_retry'))
        retried.push(child.id);
    }
    // Each child meeting a 429 retried; the others may have waited at the shared pause instead.
    expect(retried.length).toBeGreaterThanOrEqual(7);
  });
});
