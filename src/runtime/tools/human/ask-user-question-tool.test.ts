import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { RunEventOf } from '../../../core/records/run-event.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const ASKING = `
rules:
  - when: { contains: again }
    steps:
      - text: "fresh start: {{input}}"
  - steps:
      - text: I need to know two things.
        tool_calls:
          - name: ask_user_question
            args:
              questions:
                - { question: "Which colour?", options: [blue, green] }
                - { question: "How many pages?" }
      - text: "You said: {{last_tool_result}}"
`;

async function setup(config: Partial<AgentConfig> = {}) {
  harness = await createRuntimeHarness({ scenarios: { main: ASKING } });
  const user = await harness.createUser('alice');
  const agent = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tools: ['ask_user_question'],
    ...config,
  });
  const conversation = await harness.createConversation(user, agent);
  return { h: harness, user, conversation };
}

/** Resolves with the run's first event of `type`, from storage or live from the bus (subscribed first). */
async function nextEvent(
  h: RuntimeHarness,
  runId: string,
  type: 'question_required',
): Promise<RunEventOf<'question_required'>> {
  let resolve: (event: RunEventOf<'question_required'>) => void = () => undefined;
  const found = new Promise<RunEventOf<'question_required'>>((done) => (resolve = done));
  const subscription = await h.bus.subscribe(runId, (event) => {
    if (event.type === type) resolve(event);
  });
  try {
    const stored = (await h.storage.events.list(runId, 0, 1000)).find((event) => event.type === type);
    if (stored) return stored;
    return await found;
  } finally {
    await subscription.unsubscribe();
  }
}

async function statusOf(h: RuntimeHarness, runId: string): Promise<Run['status'] | undefined> {
  return (await h.storage.runs.get(runId))?.status;
}

describe('ask_user_question', () => {
  it('parks the run with a question_required event and resumes it with the answers as the tool result', async () => {
    const { h, user, conversation } = await setup();
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'make me a report' });
    const event = await nextEvent(h, run.id, 'question_required');
    const toolCallId = String(event.payload.tool_call_id);
    expect(event.payload.questions).toEqual([
      { question: 'Which colour?', options: ['blue', 'green'] },
      { question: 'How many pages?' },
    ]);
    await expect.poll(() => statusOf(h, run.id)).toBe('input_required');
    expect((await h.storage.runs.get(run.id))?.worker_id).toBeNull();
    expect(await h.runs.listQuestions(user, run.id)).toEqual([
      expect.objectContaining({ tool_call_id: toolCallId, status: 'pending', answers: null }),
    ]);
    // A question is not an approval: the approvals list and route do not see it.
    expect(await h.runs.listApprovals(user, run.id)).toEqual([]);
    await expect(
      h.runs.decideApproval(user, run.id, toolCallId, { decision: 'approve' }),
    ).rejects.toMatchObject({
      code: 'approval_not_found',
    });

    const answered = await h.runs.answerQuestion(user, run.id, toolCallId, [' green ', 'three']);
    expect(answered.question).toMatchObject({ status: 'answered', answers: ['green', 'three'] });
    const done = await h.runs.await(user, run.id, 10_000);
    expect(done.run.status).toBe('completed');
    const expected =
      'The user answered:\n\nQuestion: Which colour?\nAnswer: green\n\nQuestion: How many pages?\nAnswer: three';
    expect(done.run.output).toBe(`You said: ${expected}`);
    const results = toolResults(await h.storage.messages.list(conversation.thread_id), 'ask_user_question');
    expect(results).toEqual([{ name: 'ask_user_question', text: expected, isError: false }]);
  });

  it('validates the answers and refuses a second answer with question_answered', async () => {
    const { h, user, conversation } = await setup();
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    const toolCallId = String((await nextEvent(h, run.id, 'question_required')).payload.tool_call_id);
    await expect(h.runs.answerQuestion(user, run.id, toolCallId, ['only one'])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(h.runs.answerQuestion(user, run.id, toolCallId, ['blue', '   '])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(h.runs.answerQuestion(user, run.id, 'call_nope', ['a', 'b'])).rejects.toMatchObject({
      code: 'question_not_found',
    });
    const mallory = await h.createUser('mallory');
    await expect(h.runs.answerQuestion(mallory, run.id, toolCallId, ['a', 'b'])).rejects.toMatchObject({
      code: 'run_not_found',
    });
    await h.runs.answerQuestion(user, run.id, toolCallId, ['blue', '2']);
    await expect(h.runs.answerQuestion(user, run.id, toolCallId, ['green', '3'])).rejects.toMatchObject({
      code: 'question_answered',
    });
    expect((await h.runs.await(user, run.id, 10_000)).run.output).toContain('Answer: blue');
  });

  it('resumes when the answer lands while the run is still parking', async () => {
    harness = await createRuntimeHarness({ scenarios: { main: ASKING }, startWorker: false });
    const h = harness;
    const user = await h.createUser('alice');
    const agent = await h.createAgent(user, 'main', { model: 'scripted:main', tools: ['ask_user_question'] });
    const conversation = await h.createConversation(user, agent);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'quick' });
    // Answered from the event handler, right after the worker emitted question_required: it may not have parked yet.
    const answering: Promise<unknown>[] = [];
    const subscription = await h.bus.subscribe(run.id, (event) => {
      if (event.type === 'question_required') {
        answering.push(
          h.runs.answerQuestion(user, run.id, String(event.payload.tool_call_id), ['blue', '1']),
        );
      }
    });
    await h.executor.start();
    h.queue.process((runId) => h.executor.execute(runId));
    const done = await h.runs.await(user, run.id, 10_000);
    await subscription.unsubscribe();
    await Promise.all(answering);
    expect(answering).toHaveLength(1);
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toContain('Answer: blue');
  });

  it('is cancelled while waiting, refuses a late answer, and leaves the conversation usable', async () => {
    const { h, user, conversation } = await setup();
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    const toolCallId = String((await nextEvent(h, run.id, 'question_required')).payload.tool_call_id);
    await expect.poll(() => statusOf(h, run.id)).toBe('input_required');
    expect((await h.runs.cancel(user, run.id)).status).toBe('cancelled');
    await expect(h.runs.answerQuestion(user, run.id, toolCallId, ['blue', '2'])).rejects.toMatchObject({
      code: 'run_not_waiting',
    });
    const next = await h.runs.postMessage(user, conversation.id, { content: 'again, please' });
    const finished = await h.runs.await(user, next.run.id, 10_000);
    expect(finished.run).toMatchObject({ status: 'completed', output: 'fresh start: again, please' });
  });
});
