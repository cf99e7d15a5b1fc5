import { afterAll, beforeAll, expect } from 'vitest';
import type { Agent } from '../../../../src/core/records/agent.js';
import type { Conversation } from '../../../../src/core/records/conversation.js';
import type { Project } from '../../../../src/core/records/project.js';
import type { Skill } from '../../../../src/core/records/skill.js';
import type { StartedRun } from '../../../../src/runtime/runs/run-service-api.js';
import { createSkillService } from '../../../../src/runtime/skills/skill-service.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../create-runtime-harness.js';
import { skillMd, zipOf } from '../../skills/skill-archives.js';
import { createTestContext, type TestContext, type TestUser } from '../create-test-context.js';
import { json } from '../expect-error.js';

const SCENARIO = `
rules:
  - steps:
      - text: "hello"
`;

/** Everything Alice owns, whose ids Bob tries. */
export interface AlicesRecords {
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
}

/** Two members: Alice owns one of every record, Bob tries her ids. */
export interface ForeignIdsWorld {
  harness: RuntimeHarness;
  ctx: TestContext;
  alice: TestUser;
  bob: TestUser;
  mine: AlicesRecords;
  /** Bob's own conversation, to try Alice's artifact and attachment ids through a conversation he may use. */
  bobsConversation: Conversation;
}

const BOUNDARY = 'trp-foreign-ids';
export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
export function multipartFile(name: string, content: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
}

async function createForeignIdsWorld(): Promise<ForeignIdsWorld> {
  // No worker: the run stays pending, so "nothing changed" is exact.
  const harness = await createRuntimeHarness({ scenarios: { main: SCENARIO }, startWorker: false });
  const ctx = await createTestContext({
    harness,
  });
  const alice = await ctx.createUser('alice');
  const bob = await ctx.createUser('bob');
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
    title: 'Secret plans',
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
  const mine: AlicesRecords = {
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
  const bobsConversation = await ctx.conversations.create(bob.user, { agent_id: 'public-bot' });
  // Bob's first request stamps his token's last_used_at; do it before any snapshot.
  expect((await ctx.request('GET', '/api/me', { token: bob.token })).status).toBe(200);
  return { harness, ctx, alice, bob, mine, bobsConversation };
}

/** Builds the world before the file's tests and closes it after; the getter is valid inside tests. */
export function useForeignIdsWorld(): () => ForeignIdsWorld {
  let world: ForeignIdsWorld | undefined;
  beforeAll(async () => {
    world = await createForeignIdsWorld();
  });
  afterAll(async () => {
    await world?.ctx.close();
    await world?.harness.close();
  });
  return () => {
    if (!world) throw new Error('The foreign-ids world is built in beforeAll');
    return world;
  };
}
