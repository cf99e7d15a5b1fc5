import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/records/conversation.js';
import type { Run } from '../core/records/run.js';
import type { RunQuestion } from '../runtime/runs/human-input/run-questions.js';
import type { AwaitedRun, StartedRun } from '../runtime/runs/run-service-api.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import {
  createTestContext,
  type TestContext,
  type TestUser,
} from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

const ASKING = `
rules:
  - when: { contains: again }
    steps:
      - text: "fresh: {{input}}"
  - steps:
      - tool_calls:
          - name: ask_user_question
            args: { questions: [{ question: "Which colour?", options: [blue, green] }] }
      - text: "Noted. {{last_tool_result}}"
`;

let harness: RuntimeHarness | undefined;
let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  await harness?.close();
  ctx = undefined;
  harness = undefined;
});

interface Setup {
  ctx: TestContext;
  alice: TestUser;
  bob: TestUser;
  admin: TestUser;
  conversation: Conversation;
}

async function setup(): Promise<Setup> {
  harness = await createRuntimeHarness({ scenarios: { main: ASKING } });
  ctx = await createTestContext({
    harness,
  });
  const alice = await ctx.createUser('alice');
  const bob = await ctx.createUser('bob');
  const admin = await ctx.createUser('root', 'admin');
  await ctx.agents.create(alice.user, {
    name: 'Main',
    slug: 'main',
    config: { model: 'scripted:main', tools: ['ask_user_question'] },
  });
  const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  return { ctx, alice, bob, admin, conversation };
}

async function ask(s: Setup, content = 'make a chart'): Promise<{ run: Run; question: RunQuestion }> {
  const { run } = await json<StartedRun>(
    await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
      token: s.alice.token,
      body: { content },
    }),
    202,
  );
  const questions = async () =>
    (
      await json<{ questions: RunQuestion[] }>(
        await s.ctx.request('GET', `/api/agent/runs/${run.id}/questions`, { token: s.alice.token }),
        200,
      )
    ).questions;
  await expect.poll(async () => (await questions()).length).toBe(1);
  const [question] = await questions();
  if (!question) throw new Error('no question');
  return { run, question };
}

const answerUrl = (runId: string, toolCallId: string) => `/api/agent/runs/${runId}/answers/${toolCallId}`;

describe('POST /api/agent/runs/{id}/answers/{tool_call_id}', () => {
  it('resumes the parked run with the answers; a second answer is 409 question_answered', async () => {
    const s = await setup();
    const { run, question } = await ask(s);
    expect(question).toMatchObject({
      run_id: run.id,
      status: 'pending',
      questions: [{ question: 'Which colour?', options: ['blue', 'green'] }],
      answers: null,
      answered_at: null,
    });
    await expect
      .poll(
        async () =>
          (
            await json<{ run: Run }>(
              await s.ctx.request('GET', `/api/agent/runs/${run.id}`, { token: s.alice.token }),
              200,
            )
          ).run.status,
      )
      .toBe('input_required');

    const url = answerUrl(run.id, question.tool_call_id);
    await expectError(
      await s.ctx.request('POST', url, { token: s.alice.token, body: { answers: ['a', 'b'] } }),
      400,
      'validation_failed',
    );
    await expectError(
      await s.ctx.request('POST', url, { token: s.alice.token, body: { answers: [] } }),
      400,
      'validation_failed',
    );
    await expectError(
      await s.ctx.request('POST', url, { token: s.alice.token, body: { answer: 'blue' } }),
      400,
      'validation_failed',
    );
    await expectError(
      await s.ctx.request('POST', url, { token: s.alice.token, body: '{"answers":' }),
      400,
      'invalid_json',
    );
    await expectError(
      await s.ctx.request('POST', answerUrl(run.id, 'call_unknown'), {
        token: s.alice.token,
        body: { answers: ['x'] },
      }),
      404,
      'question_not_found',
    );
    // Another member, and even an admin, cannot answer for the user the agent asked.
    await expectError(
      await s.ctx.request('POST', url, { token: s.bob.token, body: { answers: ['x'] } }),
      404,
      'run_not_found',
    );
    await expectError(
      await s.ctx.request('GET', `/api/agent/runs/${run.id}/questions`, { token: s.bob.token }),
      404,
      'run_not_found',
    );
    await expectError(
      await s.ctx.request('POST', url, { token: s.admin.token, body: { answers: ['x'] } }),
      404,
      'run_not_found',
    );

    const answered = await json<{ question: RunQuestion; run: Run }>(
      await s.ctx.request('POST', url, { token: s.alice.token, body: { answers: ['green'] } }),
      200,
    );
    expect(answered.question).toMatchObject({ status: 'answered', answers: ['green'] });
    expect(['pending', 'running', 'completed']).toContain(answered.run.status);
    await expectError(
      await s.ctx.request('POST', url, { token: s.alice.token, body: { answers: ['blue'] } }),
      409,
      'question_answered',
    );

    const done = await json<AwaitedRun>(
      await s.ctx.request('GET', `/api/agent/runs/${run.id}/await?timeout_ms=15000`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(done.run).toMatchObject({
      status: 'completed',
      output: 'Noted. The user answered:\n\nQuestion: Which colour?\nAnswer: green',
    });
    const events = await s.ctx.storage.events.list(run.id, 0, 1000);
    expect(events.find((event) => event.type === 'question_required')?.payload).toMatchObject({
      tool_call_id: question.tool_call_id,
      questions: [{ question: 'Which colour?', options: ['blue', 'green'] }],
    });
  });

  it('lets the user cancel while the run waits; a late answer is 409 run_not_waiting and the conversation goes on', async () => {
    const s = await setup();
    const { run, question } = await ask(s);
    await expect.poll(async () => (await s.ctx.storage.runs.get(run.id))?.status).toBe('input_required');
    const cancelled = await json<{ run: Run }>(
      await s.ctx.request('POST', `/api/agent/runs/${run.id}/cancel`, { token: s.alice.token }),
      200,
    );
    expect(cancelled.run.status).toBe('cancelled');
    await expectError(
      await s.ctx.request('POST', answerUrl(run.id, question.tool_call_id), {
        token: s.alice.token,
        body: { answers: ['blue'] },
      }),
      409,
      'run_not_waiting',
    );
    const next = await json<StartedRun>(
      await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
        token: s.alice.token,
        body: { content: 'again' },
      }),
      202,
    );
    const done = await json<AwaitedRun>(
      await s.ctx.request('GET', `/api/agent/runs/${next.run.id}/await?timeout_ms=15000`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(done.run).toMatchObject({ status: 'completed', output: 'fresh: again' });
  });
});
