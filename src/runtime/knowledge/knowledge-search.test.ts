import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { User } from '../../core/records/user.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { defineTool } from '../../core/tools/troupe-tool.js';
import { createKnowledgeSearchTool } from './knowledge-search-tool.js';
import type { KnowledgeService } from './knowledge-service.js';
import { createKnowledgeMiddleware } from './create-knowledge-middleware.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SEARCH_THEN_TASK = `
rules:
  - steps:
      - tool_calls:
          - name: knowledge_search
            args: { query: "{{input}}" }
      - tool_calls:
          - name: task
            args: { subagent_slug: helper, description: "{{input}}" }
      - text: "main done"
`;
const HELPER_SEARCH = `
rules:
  - steps:
      - tool_calls:
          - name: knowledge_search
            args: { query: "{{input}}" }
      - text: "Helper: {{last_tool_result}}"
`;

/** A harness on the production wiring, knowledge middleware included. */
async function start(
  scenarios: Record<string, string>,
  extraTools: Parameters<typeof createRuntimeHarness>[0] = {},
) {
  const h = await createRuntimeHarness({ scenarios, ...extraTools });
  harness = h;
  return { h, knowledge: h.runtime.knowledge };
}

async function sourceWith(
  knowledge: KnowledgeService,
  owner: User,
  name: string,
  text: string,
  visibility: 'private' | 'shared' | 'public' = 'private',
) {
  const source = await knowledge.create(owner, { name, visibility });
  await knowledge.addDocuments(owner, source.id, [
    { name: `${name}.md`, bytes: new TextEncoder().encode(text) },
  ]);
  return source;
}

describe('knowledge_search in runs', () => {
  it('a main agent and its subagent each search only their own configured sources', async () => {
    const { h, knowledge } = await start({ main: SEARCH_THEN_TASK, helper: HELPER_SEARCH });
    const alice = await h.createUser('alice');
    const bob = await h.createUser('bob');
    await sourceWith(knowledge, alice, 'main-docs', '# Main\n\nThe zebra grazes in the main paddock.');
    await sourceWith(knowledge, alice, 'helper-docs', '# Helper\n\nThe zebra sleeps in the helper stable.');
    await sourceWith(knowledge, bob, 'bob-docs', '# Bob\n\nThe zebra belongs to bob alone.');
    await h.createAgent(
      alice,
      'helper',
      { model: 'scripted:helper', tools: ['ls'], knowledge_sources: ['helper-docs', 'bob-docs'] },
      {
        backend: 'subagent',
        is_subagent: true,
      },
    );
    const main = await h.createAgent(alice, 'main', {
      model: 'scripted:main',
      tools: ['ls'],
      knowledge_sources: ['main-docs'],
    });
    const conversation = await h.createConversation(alice, main);

    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'zebra' });
    expect((await h.runs.await(alice, run.id, 15_000)).run.status).toBe('completed');

    const [mainSearch] = toolResults(
      await h.storage.messages.list(conversation.thread_id),
      'knowledge_search',
    );
    expect(mainSearch?.isError).toBe(false);
    expect(mainSearch?.text).toContain('[1] main-docs/main-docs.md § Main');
    expect(mainSearch?.text).not.toMatch(/helper-docs|bob/);

    const [child] = await h.storage.runs.listChildren(run.id);
    const [helperSearch] = toolResults(
      await h.storage.messages.list(child?.thread_id ?? ''),
      'knowledge_search',
    );
    expect(helperSearch?.text).toContain('1 passage from helper-docs');
    expect(helperSearch?.text).toContain('helper stable');
    // Bob's private source is in the helper's config, but alice's run never reads it.
    expect(helperSearch?.text).not.toMatch(/main-docs|bob alone|bob-docs\//);
  });

  it('re-checks access on every call: a grant revoked mid-run stops the next search', async () => {
    const revoke: { run?: () => Promise<void> } = {};
    const revokeTool = defineTool({
      effect: 'read_only',
      name: 'revoke_now',
      description: 'Test hook: revokes the grant',
      inputSchema: z.object({}).strict(),
      async execute() {
        await revoke.run?.();
        return 'revoked';
      },
    });
    const scenario = `
rules:
  - steps:
      - tool_calls: [{ name: knowledge_search, args: { query: "{{input}}" } }]
      - tool_calls: [{ name: revoke_now, args: {} }]
      - tool_calls: [{ name: knowledge_search, args: { query: "{{input}}" } }]
      - text: "done"
`;
    const { h, knowledge } = await start({ main: scenario }, { extraTools: [revokeTool] });
    const alice = await h.createUser('alice');
    const bob = await h.createUser('bob');
    const shared = await sourceWith(
      knowledge,
      bob,
      'bob-shared',
      'Quokkas live on Rottnest Island.',
      'shared',
    );
    await knowledge.grant(bob, shared.id, alice.id, 'granted');
    revoke.run = () => knowledge.revokeGrant(bob, shared.id, alice.id);
    const main = await h.createAgent(alice, 'main', {
      model: 'scripted:main',
      tools: ['revoke_now'],
      knowledge_sources: ['bob-shared'],
    });
    const conversation = await h.createConversation(alice, main);

    const { run } = await h.runs.postMessage(alice, conversation.id, { content: 'quokkas' });
    expect((await h.runs.await(alice, run.id, 15_000)).run.status).toBe('completed');
    const [before, after] = toolResults(
      await h.storage.messages.list(conversation.thread_id),
      'knowledge_search',
    );
    expect(before?.text).toContain('Rottnest Island');
    expect(after?.text).toContain('No knowledge source is available');
    expect(after?.text).not.toContain('Rottnest');
  });

  it("never searches another user's source, whatever the config says", async () => {
    const { h, knowledge } = await start({});
    const alice = await h.createUser('alice');
    const bob = await h.createUser('bob');
    const secret = await sourceWith(knowledge, bob, 'bob-secret', 'The launch code is swordfish.');
    const tool = createKnowledgeSearchTool({
      service: knowledge,
      user: alice,
      refs: [secret.id, 'bob-secret'],
    });
    const output = await tool.execute({ query: 'launch code swordfish' }, {} as never);
    expect(output).toContain('No knowledge source is available');
    expect(output).not.toContain('swordfish.');
    // The owner, with the same tool, does find it.
    const own = await createKnowledgeSearchTool({
      service: knowledge,
      user: bob,
      refs: ['bob-secret'],
    }).execute({ query: 'swordfish' }, {} as never);
    expect(own).toContain('The launch code is swordfish.');
  });

  it('mounts nothing on agents without sources, and adds the prompt section on those with some', async () => {
    const { h, knowledge } = await start({});
    const alice = await h.createUser('alice');
    await sourceWith(knowledge, alice, 'notes', 'Some notes.');
    const plain = await h.createAgent(alice, 'plain', { model: 'scripted:x' });
    const equipped = await h.createAgent(alice, 'equipped', {
      model: 'scripted:x',
      knowledge_sources: ['notes', 'ghost'],
    });
    const middleware = createKnowledgeMiddleware({ storage: h.storage, service: knowledge });
    const run = { user_id: alice.id, run_type: 'chat' } as never;
    const context = {
      user: alice,
      conversation: {} as never,
      project: {} as never,
      hasLedger: false,
      emitter: {} as never,
      tools: [],
    };
    expect(await middleware({ run, agent: plain, ...context })).toEqual([]);
    const [layer] = await middleware({ run, agent: equipped, ...context });
    expect(layer?.tools?.map((tool) => tool.name)).toEqual(['knowledge_search']);
    let system = '';
    await layer?.wrapModelCall?.({ system: 'Base.' } as never, (request) => {
      system = request.system;
      return Promise.resolve({
        text: '',
        toolCalls: [],
        usage: { input_tokens: 0, output_tokens: 0 },
        finishReason: 'stop',
      });
    });
    expect(system).toContain('Base.\n\n## Knowledge sources');
    expect(system).toContain('- notes');
    expect(system).not.toContain('ghost');
  });
});

describe('chunk offsets survive the round trip through the service', () => {
  it('stores passages whose locations point into the extracted text', async () => {
    const { h, knowledge } = await start({});
    const alice = await h.createUser('alice');
    const text = '# Guide\n\n## Install\n\nRun npm ci.\n\n## Start\n\nRun npm start.';
    await sourceWith(knowledge, alice, 'guide', text);
    const { results } = await knowledge.search(alice, 'guide', { query: 'npm start' });
    const best = results[0];
    expect(best?.location).toMatchObject({ heading_path: ['Guide', 'Start'], page: null });
    expect(text.slice(best?.location.start, best?.location.end)).toBe('## Start\n\nRun npm start.');
    expect(best?.text).toBe('## Start\n\nRun npm start.');
  });
});
