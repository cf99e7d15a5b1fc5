import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../core/records/agent.js';
import type { Conversation } from '../core/records/conversation.js';
import type { Project } from '../core/records/project.js';
import type { Skill } from '../core/records/skill.js';
import { createSkillService } from '../runtime/skills/skill-service.js';
import { skillMd, zipOf } from '../../test/helpers/skills/skill-archives.js';
import type { StartedRun } from '../runtime/run-service-api.js';
import type { RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import { createRuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

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
  skill: Skill;
  sharedSkill: Skill;
  sourceId: string;
  documentId: string;
  artifactId: string;
  attachmentId: string;
};
/** Bob's own conversation, to try Alice's artifact and attachment ids through a conversation he may use. */
let bobsConversation: Conversation;

const BOUNDARY = 'trp-foreign-ids';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
function multipartFile(name: string, content: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
}

beforeAll(async () => {
  // No worker: the run stays pending, so "nothing changed" is exact.
  harness = await createRuntimeHarness({ scenarios: { main: SCENARIO }, startWorker: false });
  ctx = await createTestContext({
    harness,
  });
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  const agent = await ctx.agents.create(alice.user, {
    name: 'Main',
    slug: 'main',
    // Published: an A2A agent, whose card and endpoint must still be invisible to others.
    status: 'published',
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
  const skills = createSkillService({ storage: ctx.storage });
  const skillArchive = (name: string) => zipOf([{ path: 'SKILL.md', content: skillMd(name) }]);
  const skill = (await skills.createFromArchive(alice.user, skillArchive('alices-skill'))).skill;
  const sharedSkill = (
    await skills.createFromArchive(alice.user, skillArchive('alices-shared-skill'), { visibility: 'shared' })
  ).skill;
  const { source } = await json<{ source: { id: string } }>(
    await ctx.request('POST', '/api/knowledge', {
      token: alice.token,
      body: { name: 'alice-notes', visibility: 'shared' },
    }),
    201,
  );
  const uploadedDocument = await ctx.app.request(`/api/knowledge/${source.id}/documents?filename=notes.md`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'text/markdown' },
    body: '# Notes\n\nThe vault code is 1234.',
  });
  const { documents } = await json<{ documents: { document: { id: string } }[] }>(uploadedDocument, 201);
  const [artifact] = await ctx.storage.artifacts.record([
    {
      run_id: started.run.id,
      conversation_id: conversation.id,
      user_id: alice.user.id,
      tool_call_id: 'call-present',
      path: 'secret-report.md',
      title: 'Secret report',
      size: 6,
      content_type: 'text/markdown; charset=utf-8',
    },
  ]);
  const uploaded = await json<{ attachments: { id: string }[] }>(
    await ctx.request('POST', `/api/conversations/${conversation.id}/attachments`, {
      token: alice.token,
      body: multipartFile('plans.txt', 'secret plans'),
      headers: { 'Content-Type': MULTIPART },
    }),
    201,
  );
  mine = {
    agent,
    shared,
    project,
    conversation,
    runId: started.run.id,
    tokenId: token?.id ?? '',
    sourceId: source.id,
    documentId: documents[0]?.document.id ?? '',
    skill,
    sharedSkill,
    artifactId: artifact?.id ?? '',
    attachmentId: uploaded.attachments[0]?.id ?? '',
  };
  // So that only the foreign project is at fault in the "use project" attempt.
  await ctx.agents.create(bob.user, {
    name: 'Public bot',
    slug: 'public-bot',
    visibility: 'public',
    status: 'published',
  });
  bobsConversation = await ctx.conversations.create(bob.user, { agent_id: 'public-bot' });
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
  body?: () => Record<string, unknown> | string;
  headers?: Record<string, string>;
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
    name: 'get skill by id',
    method: 'GET',
    url: () => `/api/skills/${mine.skill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'get skill by name',
    method: 'GET',
    url: () => '/api/skills/alices-skill',
    code: 'skill_not_found',
  },
  {
    name: 'get shared skill',
    method: 'GET',
    url: () => `/api/skills/${mine.sharedSkill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'make a skill public',
    method: 'PATCH',
    url: () => `/api/skills/${mine.skill.id}`,
    body: () => ({ visibility: 'public' }),
    code: 'skill_not_found',
  },
  {
    name: 'delete skill',
    method: 'DELETE',
    url: () => `/api/skills/${mine.skill.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'list skill grants',
    method: 'GET',
    url: () => `/api/skills/${mine.sharedSkill.id}/grants`,
    code: 'skill_not_found',
  },
  {
    name: 'grant myself a skill',
    method: 'POST',
    url: () => `/api/skills/${mine.sharedSkill.id}/grants`,
    body: () => ({ user_id: bob.user.id }),
    code: 'skill_not_found',
  },
  {
    name: 'revoke a skill grant',
    method: 'DELETE',
    url: () => `/api/skills/${mine.sharedSkill.id}/grants/${alice.user.id}`,
    code: 'skill_not_found',
  },
  {
    name: 'install a skill from a foreign conversation',
    method: 'POST',
    url: () => '/api/skills',
    body: () => ({ from_workdir: { conversation_id: mine.conversation.id, path: '.' } }),
    code: 'conversation_not_found',
  },
  {
    name: 'install a skill from a foreign project',
    method: 'POST',
    url: () => '/api/skills',
    body: () => ({ from_workdir: { project_id: mine.project.id, path: '.' } }),
    code: 'project_not_found',
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
    name: 'get knowledge source',
    method: 'GET',
    url: () => `/api/knowledge/${mine.sourceId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'get knowledge source by name',
    method: 'GET',
    url: () => '/api/knowledge/alice-notes',
    code: 'knowledge_source_not_found',
  },
  {
    name: 'update knowledge source',
    method: 'PUT',
    url: () => `/api/knowledge/${mine.sourceId}`,
    body: () => ({ visibility: 'public' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'delete knowledge source',
    method: 'DELETE',
    url: () => `/api/knowledge/${mine.sourceId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'list knowledge documents',
    method: 'GET',
    url: () => `/api/knowledge/${mine.sourceId}/documents`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'upload a knowledge document',
    method: 'POST',
    url: () => `/api/knowledge/${mine.sourceId}/documents?filename=pwned.md`,
    body: () => ({ text: 'pwned' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'delete a knowledge document',
    method: 'DELETE',
    url: () => `/api/knowledge/${mine.sourceId}/documents/${mine.documentId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'search a knowledge source',
    method: 'POST',
    url: () => `/api/knowledge/${mine.sourceId}/search`,
    body: () => ({ query: 'vault code' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'list knowledge grants',
    method: 'GET',
    url: () => `/api/knowledge/${mine.sourceId}/grants`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'grant myself a knowledge source',
    method: 'POST',
    url: () => `/api/knowledge/${mine.sourceId}/grants`,
    body: () => ({ user_id: bob.user.id, source: 'granted' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'revoke the knowledge owner grant',
    method: 'DELETE',
    url: () => `/api/knowledge/${mine.sourceId}/grants/${alice.user.id}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'run trace',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/trace`,
    code: 'run_not_found',
  },
  {
    name: 'list runs of a foreign conversation',
    method: 'GET',
    url: () => `/api/agent/runs?conversation_id=${mine.conversation.id}`,
    code: 'conversation_not_found',
  },
  {
    name: 'list runs of a foreign user',
    method: 'GET',
    url: () => `/api/agent/runs?user_id=${alice.user.id}`,
    code: 'HTTP 200 nothing listed',
    status: 200,
    answer: { runs: [], next_cursor: null },
  },
  {
    name: 'list runs by a foreign agent',
    method: 'GET',
    url: () => `/api/agent/runs?agent=${mine.agent.id}`,
    code: 'HTTP 200 nothing listed',
    status: 200,
    answer: { runs: [], next_cursor: null },
  },
  {
    name: 'list questions',
    method: 'GET',
    url: () => `/api/agent/runs/${mine.runId}/questions`,
    code: 'run_not_found',
  },
  {
    name: 'answer a question',
    method: 'POST',
    url: () => `/api/agent/runs/${mine.runId}/answers/call-1`,
    body: () => ({ answers: ['hijacked'] }),
    code: 'run_not_found',
  },
  {
    name: 'list artifacts',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/artifacts`,
    code: 'conversation_not_found',
  },
  {
    name: 'download an artifact',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/artifacts/${mine.artifactId}/download`,
    code: 'conversation_not_found',
  },
  {
    name: 'download a foreign artifact through my own conversation',
    method: 'GET',
    url: () => `/api/conversations/${bobsConversation.id}/artifacts/${mine.artifactId}/download`,
    code: 'artifact_not_found',
  },
  {
    name: 'attach a file',
    method: 'POST',
    url: () => `/api/conversations/${mine.conversation.id}/attachments`,
    body: () => multipartFile('planted.txt', 'planted'),
    headers: { 'Content-Type': MULTIPART },
    code: 'conversation_not_found',
  },
  {
    name: 'list attachments',
    method: 'GET',
    url: () => `/api/conversations/${mine.conversation.id}/attachments`,
    code: 'conversation_not_found',
  },
  {
    name: 'send a foreign attachment in my own conversation',
    method: 'POST',
    url: () => `/api/conversations/${bobsConversation.id}/messages`,
    body: () => ({ content: 'read this', attachments: [mine.attachmentId] }),
    code: 'attachment_not_found',
  },
  {
    name: 'A2A card of a foreign expert',
    method: 'GET',
    url: () => '/a2a/main/.well-known/agent-card.json',
    code: 'agent_not_found',
  },
  {
    name: 'A2A call to a foreign expert',
    method: 'POST',
    url: () => `/a2a/${mine.agent.id}`,
    body: () => ({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.runId } }),
    code: 'agent_not_found',
  },
  // JSON-RPC errors travel with HTTP 200 (A2A §9.5): a foreign task is TaskNotFound, a foreign context refused.
  ...(['GetTask', 'CancelTask', 'SubscribeToTask'] as const).map((method) => ({
    name: `A2A ${method} on a foreign task`,
    method: 'POST',
    url: () => '/a2a/public-bot',
    body: () => ({ jsonrpc: '2.0', id: 1, method, params: { id: mine.runId } }),
    code: 'JSON-RPC -32001',
    status: 200,
    answer: { error: { code: -32001 } },
  })),
  {
    name: 'A2A message into a foreign context',
    method: 'POST',
    url: () => '/a2a/public-bot',
    body: () => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'm1',
          role: 'ROLE_USER',
          parts: [{ text: 'hijack' }],
          contextId: mine.conversation.id,
        },
      },
    }),
    code: 'JSON-RPC -32602',
    status: 200,
    answer: { error: { code: -32602 } },
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
    const ownIds = [
      mine.tokenId,
      mine.agent.id,
      mine.shared.id,
      mine.conversation.id,
      mine.runId,
      'main',
      mine.skill.id,
      mine.sharedSkill.id,
      'alices-skill',
      mine.sourceId,
      bobsConversation.id,
    ];
    const tried = ATTEMPTS.map((attempt) => {
      let url = attempt.url().split('?')[0] ?? '';
      url = url.replace(`/grants/${alice.user.id}`, '/grants/{user_id}');
      url = url.replace(`/documents/${mine.documentId}`, '/documents/{document_id}');
      for (const id of ownIds) url = url.replace(`/${id}`, '/{id}');
      url = url.replace('/approvals/call-1', '/approvals/{tool_call_id}');
      url = url.replace('/answers/call-1', '/answers/{tool_call_id}');
      url = url.replace(`/artifacts/${mine.artifactId}/`, '/artifacts/{artifact_id}/');
      return `${attempt.method} ${url}`;
    });
    expect(idRoutes.filter((route) => !tried.includes(route))).toEqual([]);
  });

  it.each(ATTEMPTS)('$name ⇒ $code, nothing changes', async (attempt) => {
    const before = ctx.dump();
    const response = await ctx.request(attempt.method, attempt.url(), {
      token: bob.token,
      body: attempt.body?.(),
      ...(attempt.headers ? { headers: attempt.headers } : {}),
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
