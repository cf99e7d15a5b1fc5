import type { Page } from 'playwright-core';
import { createConversation, json, openSignedIn } from './console-page.js';
import { consoleSession } from './console-session.js';
import type { TestServer } from './start-test-server.js';
import { syntheticRuns, USAGE_52 } from './synthetic-runs.js';

/** The phone of the mobile tests: an iPhone 12–14 viewport. */
export const PHONE = { width: 390, height: 844 };

/** What `seedConsoleTour` made, for the pages that show it. */
export interface ConsoleTour {
  conversationId: string;
  emptyConversationId: string;
  parentRunId: string;
  agentId: string;
  knowledgeSourceId: string;
}

export interface ConsolePage {
  name: string;
  path: string;
  ready: (page: Page) => Promise<unknown>;
}

/** A conversation whose turn is running with a subagent (running) and a delegation (completed). */
export async function seedConsoleTour(server: TestServer): Promise<ConsoleTour> {
  const synthetic = syntheticRuns(server);
  const conversationId = await createConversation(server, 'Team work on the notes');
  const emptyConversationId = await createConversation(server, 'Nothing yet');
  const parent = await synthetic.parent(conversationId, 'team: look into the **notes** and report back');
  await synthetic.emit(parent, 'metadata', { model: 'scripted:demo (scripted — not an LLM)' });
  await synthetic.emit(parent, 'message_delta', {
    text: 'Handing this to the team. A long sentence that wraps on a phone, to check nothing overflows sideways.',
  });
  const research = await synthetic.child(parent, {
    slug: 'researcher',
    kind: 'subagent',
    task: 'List the notes',
  });
  await synthetic.emit(parent, 'tool_call', {
    step: 1,
    tool_call_id: research.toolCallId,
    name: 'subagent_start',
    args: { subagent_slug: 'researcher', description: research.task },
  });
  await synthetic.setStatus(research.run.id, 'running');
  await synthetic.update(parent, research, 'running');
  const analysis = await synthetic.child(parent, {
    slug: 'analyst',
    kind: 'delegation',
    task: 'Recommend what to do',
  });
  await synthetic.setStatus(analysis.run.id, 'completed', {
    output: 'Archive the old notes.',
    usage: USAGE_52,
  });
  await synthetic.update(parent, analysis, 'completed', { output: 'Archive the old notes.' });
  // Files the turn presented: the side panel's files part, whose last control is a Download link.
  await server.troupe.storage.artifacts.record(
    ['summary', 'findings', 'a-long-file-name-that-has-to-wrap-somewhere-on-a-phone'].map((name, index) => ({
      run_id: parent.id,
      conversation_id: conversationId,
      user_id: parent.user_id,
      tool_call_id: `call_present_${index}`,
      path: `reports/${name}.md`,
      title: index === 0 ? 'Summary of the notes' : null,
      size: 1200 * (index + 1),
      content_type: 'text/markdown; charset=utf-8',
    })),
  );
  const agent = await json<{ agent: { id: string } }>(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Planner with specs',
        config: {
          model: 'scripted:demo',
          tools: ['read_file', 'ls'],
          subagent_specs: [
            { name: 'helper', description: 'Reads', system_prompt: 'Read.', tools: ['read_file'] },
            { name: 'bad name', description: 'x', system_prompt: 'y' },
          ],
        },
      }),
    }),
  );
  const { sources } = await json<{ sources: { id: string; name: string }[] }>(
    await server.api('/api/knowledge'),
  );
  const knowledgeSourceId = sources.find((source) => source.name === 'ops-handbook')?.id ?? '';
  return {
    conversationId,
    emptyConversationId,
    parentRunId: parent.id,
    agentId: agent.agent.id,
    knowledgeSourceId,
  };
}

export function consolePages(fixture: ConsoleTour): ConsolePage[] {
  const heading = (name: string | RegExp) => (p: Page) =>
    p.getByRole('heading', { name, level: 1 }).first().waitFor();
  return [
    {
      name: 'chat-empty',
      path: '/chat',
      // Settled once the agents are in: the composer is enabled and has the focus.
      ready: (p) => p.locator('#composer-input:focus').waitFor(),
    },
    {
      name: 'chat-conversation',
      path: `/chat/${fixture.conversationId}`,
      ready: (p) => p.getByRole('log', { name: 'Messages' }).getByText('Handing this to the team.').waitFor(),
    },
    { name: 'chat-no-children', path: `/chat/${fixture.emptyConversationId}`, ready: heading('Nothing yet') },
    {
      name: 'agents',
      path: '/agents',
      ready: (p) => p.getByRole('article', { name: 'Assistant' }).waitFor(),
    },
    { name: 'agent-new', path: '/agents/new?kind=agent', ready: heading('New agent') },
    {
      name: 'agent-edit-specs',
      path: `/agents/${fixture.agentId}/edit`,
      ready: (p) =>
        p.getByRole('region', { name: 'Build report' }).locator('.build-warning').first().waitFor(),
    },
    { name: 'runs', path: '/runs', ready: (p) => p.getByRole('table', { name: 'Runs' }).waitFor() },
    {
      name: 'trace',
      path: `/runs/${fixture.parentRunId}`,
      ready: (p) => p.getByRole('list', { name: 'Run tree' }).getByRole('article').nth(2).waitFor(),
    },
    {
      name: 'settings',
      path: '/settings',
      ready: (p) => p.getByRole('table').first().locator('tbody tr').first().waitFor(),
    },
    { name: 'skills', path: '/skills', ready: (p) => p.getByText('citation-style').first().waitFor() },
    {
      name: 'skill-detail',
      path: '/skills/citation-style',
      ready: (p) => p.getByRole('region', { name: 'Skill citation-style' }).waitFor(),
    },
    {
      name: 'knowledge',
      path: '/knowledge',
      ready: (p) => p.getByRole('table', { name: 'Knowledge sources' }).locator('tbody tr').first().waitFor(),
    },
    {
      name: 'knowledge-source',
      path: `/knowledge/${fixture.knowledgeSourceId}`,
      ready: (p) => p.getByRole('table', { name: 'Documents' }).locator('tbody tr').first().waitFor(),
    },
    {
      name: 'runs-filtered',
      path: '/runs?status=running&kind=subagent',
      ready: (p) => p.getByRole('table', { name: 'Runs' }).waitFor(),
    },
    { name: 'not-found', path: '/no/such/page', ready: heading('Not found') },
  ];
}

export async function visit(target: Page, server: TestServer, entry: ConsolePage): Promise<void> {
  await target.goto(`${server.url}${entry.path}`);
  await entry.ready(target);
}

/**
 * A console session whose `ready` seeds the tour and signs in on the chat page; `pages()` are the console's
 * pages over that seed, `tour()` the seed itself.
 */
export async function consoleTourSession(name: string, timeout: number) {
  let seeded: ConsoleTour | undefined;
  const tour = (): ConsoleTour => {
    if (!seeded) throw new Error('the console tour is seeded in beforeAll');
    return seeded;
  };
  const session = await consoleSession({
    name,
    failedPrefix: 'failed-mobile-',
    ready: async ({ page, server }) => {
      seeded = await seedConsoleTour(server);
      await openSignedIn(page, server, '/chat');
    },
    timeout,
  });
  return { session, tour, pages: () => consolePages(tour()) };
}
