import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../core/records/agent.js';
import type { Conversation } from '../core/records/conversation.js';
import type { Project } from '../core/records/project.js';
import type { StartedRun } from '../runtime/run-service-api.js';
import type { RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import { createRuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import type { TestContext, TestUser } from './testing/create-test-context.js';
import { createTestContext } from './testing/create-test-context.js';
import { expectError, json } from './testing/expect-error.js';

const SCENARIO = `
rules:
  - steps:
      - text: "hello"
`;

let harness: RuntimeHarness;
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let mine: {
  agent: Agent;
  shared: Agent;
  project: Project;
  conversation: Conversation;
  runId: string;
  tokenId: string;
};

beforeAll(async () => {
  // No worker: the run stays pending, so "nothing changed" is exact.
  harness = await createRuntimeHarness({ scenarios: { main: SCENARIO }, startWorker: false });
  ctx = await createTestContext({
    storage: { storage: harness.storage, filename: path.join(harness.dir, 'troupe.db') },
    runs: harness.runs,
    delegationRuns: harness.delegation,
  });
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  const agent = await ctx.agents.create(alice.user, {
    name: 'Main',
    slug: 'main',
    config: { model: 'scripted:main' },
  });
  const shared = await ctx.agents.create(alice.user, {
    name: 'Shared',
    slug: 'shared',
    visibility: 'shared',
  });
  const project = await ctx.projects.createProject(alice.user, 'Secret project');
  const conversation = await ctx.conversations.create(alice.user, {
    agent_id: agent.id,
    project_id: project.id,
  });
  const started = await json<StartedRun>(
    await ctx.request('POST', `/api/conversations/${conversation.id}/messages`, {
      token: alice.token,
      body: { content: 'hi' },
    }),
    202,
  );
  const [token] = await ctx.storage.tokens.listForUser(alice.user.id);
  mine = { agent, shared, project, conversation, runId: started.run.id, tokenId: token?.id ?? '' };
  // So that only the foreign project is at fault in the "use project" attempt.
  await ctx.agents.create(bob.user, { name: 'Public bot', slug: 'public-bot', visibility: 'public' });
  // Bob's first request stamps his token's last_used_at; do it before any snapshot.
  expect((await ctx.request('GET', '/api/me', { token: bob.token })).status).toBe(200);
});
afterAll(async () => {
  await ctx.close();
  await harness.close();
});

interface Attempt {
  name: string;
  method: string;
  url: () => string;
  body?: () => Record<string, unknown>;
  code: string;
  status?: number;
  /** For HTTP 200 answers (delegation refusals are results, SPEC §6): the body to match. */
  answer?: Record<string, unknown>;
}

const ATTEMPTS: Attempt[] = [
  {
    name: 'revoke token',
    method: 'DELETE',
    url: () => `/api/me/tokens/${mine.tokenId}`,
    code: 'token_not_found',
  },
  {
    name: 'get agent by id',
    method: 'GET',
    url: () => `/api/agent/${mine.agent.id}`,
    code: 'agent_not_found',
  },
  { name: 'get agent by slug', method: 'GET', url: () => '/api/agent/main', code: 'agent_not_found' },
  {
    name: 'get shared agent',
    method: 'GET',
    url: () => `/api/agent/${mine.shared.id}`,
    code: 'agent_not_found',
  },
  {
    name: 'agent build report',
    method: 'GET',
    url: () => `/api/agent/${mine.agent.id}/build-report`,
    code: 'agent_not_found',
  },
  {
    name: 'draft build report with stored secrets',
    method: 'POST',
    url: () => '/api/agent/build-report',
    body: () => ({ config: {}, agent_id: mine.agent.id }),
    code: 'agent_not_found',
  },
  {
    name: 'update agent',
    method: 'PUT',
    url: () => `/api/agent/${mine.agent.id}`,
    body: () => ({ name: 'Pwned' }),
    code: 'agent_not_found',
  },
  {
    name: 'delete agent',
    method: 'DELETE',
    url: () => `/api/agent/${mine.agent.id}`,
    code: 'agent_not_found',
  },
  // Admin-only: every member gets 403 whatever the id, so it reveals nothing either.
  {
    name: 'set default',
    method: 'POST',
    url: () => `/api/agent/${mine.agent.id}/set_default`,
    code: 'forbidden',
    status: 403,
  },
  {
    name: 'chat with agent',
    method: 'POST',
    url: () => '/api/conversations',
    body: () => ({ agent_id: 'main' }),
    code: 'agent_not_found',
  },
  {
    name: 'use project',
    method: 'POST',
    url: () => '/api/conversations',
    body: () => ({ agent_id: 'public-bot', project_id: mine.project.id }),
    code: 'project_not_found',
  },
  {
    name: 'get conversation',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}`,
    code: 'conversation_not_found',
  },
  {
    name: 'patch conversation',
    method: 'PATCH',
    url: () => `/api/conversations/${mine.conversation.id}`,
    body: () => ({ title: 'Pwned', status: 'archived' }),
    code: 'conversation_not_found',
  },
  {
    name: 'read messages',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/messages`,
    code: 'conversation_not_found',
  },
  {
    name: 'post message',
    method: 'POST',
    url: () => `/api/conversations/${mine.conversation.id}/messages`,
    body: () => ({ content: 'hijack' }),
    code: 'conversation_not_found',
  },
  {
    name: 'list runs',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/runs`,
    code: 'conversation_not_found',
  },
  { name: 'get run', method: 'GET', url: () => `/api/agent/runs/${mine.runId}`, code: 'run_not_found' },
  {
    name: 'run result',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/result`,
    code: 'run_not_found',
  },
  {
    name: 'cancel run',
    method: 'POST',
    url: () => `/api/agent/runs/${mine.runId}/cancel`,
    code: 'run_not_found',
  },
  {
    name: 'await run',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/await?timeout_ms=10`,
    code: 'run_not_found',
  },
  {
    name: 'run tree',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/tree`,
    code: 'run_not_found',
  },
  {
    name: 'status panel',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/subagents`,
    code: 'conversation_not_found',
  },
  {
    name: 'list approvals',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/approvals`,
    code: 'run_not_found',
  },
  {
    name: 'decide approval',
    method: 'POST',
    url: () => `/api/agent/runs/${mine.runId}/approvals/call-1`,
    body: () => ({ decision: 'approve' }),
    code: 'run_not_found',
  },
  {
    name: 'run events',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/events`,
    code: 'run_not_found',
  },
  {
    name: 'publish agent',
    method: 'POST',
    url: () => `/api/agent/${mine.agent.id}/publish`,
    code: 'agent_not_found',
  },
  {
    name: 'unpublish agent',
    method: 'POST',
    url: () => `/api/agent/${mine.agent.id}/unpublish`,
    code: 'agent_not_found',
  },
  {
    name: 'list grants',
    method: 'GET',
    url: () => `/api/agent/${mine.shared.id}/grants`,
    code: 'agent_not_found',
  },
  {
    name: 'grant myself access',
    method: 'POST',
    url: () => `/api/agent/${mine.shared.id}/grants`,
    body: () => ({ user_id: bob.user.id, source: 'granted' }),
    code: 'agent_not_found',
  },
  {
    name: 'revoke the owner grant',
    method: 'DELETE',
    url: () => `/api/agent/${mine.shared.id}/grants/${alice.user.id}`,
    code: 'agent_not_found',
  },
  {
    name: 'delegate from a foreign conversation',
    method: 'POST',
    url: () => '/api/delegate',
    body: () => ({ expert: 'public-bot', task: 'x', conversation_id: mine.conversation.id }),
    code: 'conversation_not_found',
  },
  {
    name: 'delegate under a foreign run',
    method: 'POST',
    url: () => '/api/delegate',
    body: () => ({ expert: 'public-bot', task: 'x', parent_run_id: mine.runId }),
    code: 'run_not_found',
  },
  {
    name: 'delegate to a foreign expert',
    method: 'POST',
    url: () => '/api/delegate',
    body: () => ({ expert: mine.agent.id, task: 'x' }),
    code: 'HTTP 200 status failed',
    status: 200,
    answer: { status: 'failed', run_id: null, error: 'Expert not found or access denied' },
  },
  {
    name: 'OpenAI-compatible model of another user',
    method: 'GET',
    url: () => '/v1/models/main',
    code: 'agent_not_found',
  },
  {
    name: 'OpenAI-compatible completion with a foreign agent',
    method: 'POST',
    url: () => '/v1/chat/completions',
    body: () => ({ model: 'main', messages: [{ role: 'user', content: 'hijack' }] }),
    code: 'agent_not_found',
  },
  {
    name: 'OpenAI-compatible completion in a foreign conversation',
    method: 'POST',
    url: () => '/v1/chat/completions',
    body: () => ({
      model: 'public-bot',
      conversation_id: mine.conversation.id,
      messages: [{ role: 'user', content: 'hijack' }],
    }),
    code: 'conversation_not_found',
  },
];

describe("another member using the first member's ids", () => {
  it('tries every route that takes an id', async () => {
    const document = (await (await ctx.request('GET', '/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const idRoutes = Object.entries(document.paths)
      .filter(([routePath]) => routePath.includes('{'))
      .flatMap(([routePath, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${routePath}`),
      );
    const ownIds = [mine.tokenId, mine.agent.id, mine.shared.id, mine.conversation.id, mine.runId, 'main'];
    const tried = ATTEMPTS.map((attempt) => {
      let url = attempt.url().split('?')[0] ?? '';
      url = url.replace(`/grants/${alice.user.id}`, '/grants/{user_id}');
      for (const id of ownIds) url = url.replace(`/${id}`, '/{id}');
      url = url.replace('/approvals/call-1', '/approvals/{tool_call_id}');
      return `${attempt.method} ${url}`;
    });
    expect(idRoutes.filter((route) => !tried.includes(route))).toEqual([]);
  });

  it.each(ATTEMPTS)('$name ⇒ $code, nothing changes', async (attempt) => {
    const before = ctx.dump();
    const response = await ctx.request(attempt.method, attempt.url(), {
      token: bob.token,
      body: attempt.body?.(),
    });
    if (attempt.answer) expect(await json(response, attempt.status ?? 200)).toMatchObject(attempt.answer);
    else await expectError(response, attempt.status ?? 404, attempt.code);
    expect(ctx.dump()).toEqual(before);
  });

  it("left the owner's records intact and usable", async () => {
    const run = await json<{ run: { status: string } }>(
      await ctx.request('GET', `/api/agent/runs/${mine.runId}`, { token: alice.token }),
      200,
    );
    expect(run.run.status).toBe('pending');
    const conversation = await json<{ conversation: Conversation }>(
      await ctx.request('GET', `/api/conversations/${mine.conversation.id}`, { token: alice.token }),
      200,
    );
    expect(conversation.conversation).toEqual(mine.conversation);
  });
});
