import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELEGATION_TEXTS } from '../core/delegation/delegation-texts.js';
import type { Agent } from '../core/records/agent.js';
import type { Conversation } from '../core/records/conversation.js';
import type { DelegateResponse } from '../runtime/delegation/client-delegation-service.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

const ANALYST = `
rules:
  - when: { contains: slow }
    steps:
      - delay_ms: 3000
        text: late
  - steps:
      - text: "Analysis of <{{input}}>"
`;
const MAIN = `
rules:
  - steps:
      - delay_ms: 1500
        text: main done
`;

let harness: RuntimeHarness;
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let logged: Record<string, unknown>[];
let analyst: Agent;

beforeEach(async () => {
  logged = [];
  harness = await createRuntimeHarness({
    scenarios: { analyst: ANALYST, main: MAIN },
    warn: (message, context) => logged.push({ message, ...context }),
  });
  ctx = await createTestContext({ harness });
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  analyst = await ctx.agents.create(alice.user, {
    name: 'Analyst',
    slug: 'analyst',
    status: 'published',
    config: { model: 'scripted:analyst' },
  });
});
afterEach(async () => {
  await ctx.close();
  await harness.close();
});

const delegate = (user: TestUser, body: Record<string, unknown>, query = '') =>
  ctx.request('POST', `/api/delegate${query}`, { token: user.token, body });

describe('GET/PUT /api/me/delegation-policy', () => {
  const put = (user: TestUser, body: unknown) =>
    ctx.request('PUT', '/api/me/delegation-policy', { token: user.token, body });

  it('starts at none and stores a whitelist, keeping 10 of 15 and reporting and logging the 5 dropped', async () => {
    expect(
      await json(await ctx.request('GET', '/api/me/delegation-policy', { token: alice.token }), 200),
    ).toEqual({
      policy: 'none',
      whitelist: [],
      max_whitelist: 10,
    });
    const fifteen = Array.from({ length: 15 }, (_, index) => `expert-${index + 1}`);
    const saved = await json(await put(alice, { policy: 'whitelist', whitelist: fifteen }), 200);
    expect(saved).toEqual({
      policy: 'whitelist',
      whitelist: fifteen.slice(0, 10),
      max_whitelist: 10,
      dropped: fifteen.slice(10),
    });
    expect(logged).toEqual([
      expect.objectContaining({
        event: 'delegation_whitelist_truncated',
        user_id: alice.user.id,
        dropped: fifteen.slice(10),
      }),
    ]);
    expect(
      await json(await ctx.request('GET', '/api/me/delegation-policy', { token: alice.token }), 200),
    ).toMatchObject({
      policy: 'whitelist',
      whitelist: fifteen.slice(0, 10),
    });
    // Per user: bob's policy did not move.
    expect(
      await json(await ctx.request('GET', '/api/me/delegation-policy', { token: bob.token }), 200),
    ).toMatchObject({ policy: 'none' });
  });

  it('ignores a whitelist sent with none or all, and refuses an empty or malformed whitelist policy', async () => {
    expect(await json(await put(alice, { policy: 'all', whitelist: ['analyst'] }), 200)).toEqual({
      policy: 'all',
      whitelist: [],
      max_whitelist: 10,
      dropped: [],
    });
    await expectError(await put(alice, { policy: 'whitelist', whitelist: [] }), 400, 'validation_failed');
    await expectError(await put(alice, { policy: 'whitelist' }), 400, 'validation_failed');
    await expectError(
      await put(alice, { policy: 'whitelist', whitelist: ['Bad Name'] }),
      400,
      'validation_failed',
    );
    await expectError(await put(alice, { policy: 'some' }), 400, 'validation_failed');
    expect(
      await json(await ctx.request('GET', '/api/me/delegation-policy', { token: alice.token }), 200),
    ).toMatchObject({ policy: 'all' });
  });
});

describe('POST /api/delegate', () => {
  it('runs the expert as the caller in a new delegation conversation and answers with its output', async () => {
    const result = await json<DelegateResponse>(
      await delegate(alice, { expert: 'analyst', task: 'the numbers' }),
      200,
    );
    expect(result).toMatchObject({ status: 'completed', output: 'Analysis of <the numbers>' });
    const run = await harness.storage.runs.get(result.run_id ?? '');
    expect(run).toMatchObject({
      user_id: alice.user.id,
      agent_id: analyst.id,
      run_type: 'delegation',
      source: 'delegation',
      channel: 'api',
      created_by_run_id: null,
      root_run_id: result.run_id,
      depth: 0,
      model_spec: 'scripted:analyst',
    });
    const conversation = await harness.storage.conversations.get(result.conversation_id ?? '');
    expect(conversation).toMatchObject({
      status: 'delegation',
      title: 'Delegation: Analyst',
      user_id: alice.user.id,
    });
  });

  it('answers both SPEC failure texts with HTTP 200 and status failed, starting nothing', async () => {
    await ctx.agents.create(alice.user, {
      name: 'Closed',
      slug: 'closed',
      status: 'published',
      delegatable: false,
    });
    const before = ctx.countRows();
    expect(await json(await delegate(alice, { expert: 'closed', task: 'x' }), 200)).toEqual({
      status: 'failed',
      run_id: null,
      conversation_id: null,
      thread_id: null,
      output: null,
      error: 'Expert is not delegatable',
    });
    for (const expert of ['analyst', analyst.id, 'no-such-expert']) {
      expect(await json(await delegate(bob, { expert, task: 'x' }), 200)).toMatchObject({
        status: 'failed',
        error: 'Expert not found or access denied',
      });
    }
    expect(ctx.countRows()).toEqual(before);
  });

  it('names experts by slug or id only: a look-alike of another user never receives the delegation', async () => {
    // Bob publishes an expert named like alice's Analyst (public, delegatable): names are not identifiers.
    const lookalike = await ctx.agents.create(bob.user, {
      name: 'ANALYST',
      slug: 'analyst-pro',
      status: 'published',
      visibility: 'public',
      config: { model: 'scripted:analyst' },
    });
    const before = ctx.countRows();
    for (const expert of ['Analyst', 'ANALYST', '@Analyst', 'Analyst-pro']) {
      expect(await json(await delegate(alice, { expert, task: 'x' }), 200)).toMatchObject({
        status: 'failed',
        run_id: null,
        error: DELEGATION_TEXTS.notFound,
      });
    }
    expect(ctx.countRows()).toEqual(before);
    for (const expert of ['analyst', analyst.id]) {
      const result = await json<DelegateResponse>(await delegate(alice, { expert, task: 'numbers' }), 200);
      expect(result.status).toBe('completed');
      expect((await harness.storage.runs.get(result.run_id ?? ''))?.agent_id).toBe(analyst.id);
    }
    const viaLookalike = await json<DelegateResponse>(
      await delegate(alice, { expert: 'analyst-pro', task: 'numbers' }),
      200,
    );
    expect((await harness.storage.runs.get(viaLookalike.run_id ?? ''))?.agent_id).toBe(lookalike.id);
  });

  it('treats a draft expert and the conversation expert itself as failed delegations too', async () => {
    await ctx.agents.create(alice.user, { name: 'Draft', slug: 'draft-expert' });
    expect(await json(await delegate(alice, { expert: 'draft-expert', task: 'x' }), 200)).toMatchObject({
      status: 'failed',
      error: DELEGATION_TEXTS.notPublished,
    });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: analyst.id });
    expect(
      await json(
        await delegate(alice, { expert: 'analyst', task: 'x', conversation_id: conversation.id }),
        200,
      ),
    ).toMatchObject({ status: 'failed', error: DELEGATION_TEXTS.self });
  });

  it('delegates from an owned active run: the child hangs under it and shows in its status panel', async () => {
    const main = await ctx.agents.create(alice.user, {
      name: 'Main',
      slug: 'main',
      config: { model: 'scripted:main' },
    });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: main.id });
    const { run: parent } = await harness.runs.postMessage(alice.user, conversation.id, { content: 'hi' });
    const result = await json<DelegateResponse>(
      await delegate(alice, {
        expert: 'analyst',
        task: 'sub question',
        parent_run_id: parent.id,
        conversation_id: conversation.id,
      }),
      200,
    );
    expect(result.status).toBe('completed');
    const child = await harness.storage.runs.get(result.run_id ?? '');
    expect(child).toMatchObject({ created_by_run_id: parent.id, root_run_id: parent.id, depth: 1 });
    const panel = await json<{ subagents: { run_id: string; kind: string }[] }>(
      await ctx.request('GET', `/api/conversations/${conversation.id}/subagents`, { token: alice.token }),
      200,
    );
    expect(panel.subagents).toMatchObject([{ run_id: result.run_id, kind: 'delegation' }]);
    const childConversation = await harness.storage.conversations.get(result.conversation_id ?? '');
    expect((childConversation as Conversation).project_id).toBe(conversation.project_id);
  });

  it('bounds the wait with wait_ms and reports the run still going', async () => {
    const result = await json<DelegateResponse>(
      await delegate(alice, { expert: 'analyst', task: 'slow one' }, '?wait_ms=50'),
      200,
    );
    expect(result).toMatchObject({ wait_timed_out: true, output: null });
    expect(['pending', 'running']).toContain(result.status);
    await expectError(
      await delegate(alice, { expert: 'analyst', task: 'x' }, '?wait_ms=-1'),
      400,
      'validation_failed',
    );
  });

  it("answers another user's conversation or run as not found", async () => {
    const conversation = await ctx.conversations.create(alice.user, { agent_id: analyst.id });
    await expectError(
      await delegate(bob, { expert: 'x', task: 'x', conversation_id: conversation.id }),
      404,
      'conversation_not_found',
    );
    const { run } = await harness.runs.postMessage(alice.user, conversation.id, { content: 'hi' });
    await expectError(
      await delegate(bob, { expert: 'x', task: 'x', parent_run_id: run.id }),
      404,
      'run_not_found',
    );
  });
});
