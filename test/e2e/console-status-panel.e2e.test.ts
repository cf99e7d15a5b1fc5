/**
 * The chat's status panel in a real chromium, driven by synthetic runs written straight into storage with
 * their events published as a worker would: cards that move live, child progress, a cancelled child, the
 * child thread and the nested run tree. Skipped, with a message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { consoleSession } from '../helpers/console-session.js';
import { ensureSignedIn, json, liveTurnText, poll } from '../helpers/console-page.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns, USAGE_52, type SyntheticChild } from '../helpers/synthetic-runs.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const E2E_TIMEOUT = 60_000;

const session = await consoleSession({
  name: 'console e2e',
  failedPrefix: 'failed-',
  noForeignRequests: true,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

/** A `running` team turn of the conversation: a researcher subagent and an analyst delegation. */
async function syntheticFanOut(conversationId: string) {
  const synthetic = syntheticRuns(server);
  const parent = await synthetic.parent(conversationId, 'team: look into the notes');
  const research = await synthetic.child(parent, {
    slug: 'researcher',
    kind: 'subagent',
    task: 'List the notes in the project',
    toolCallId: 'call_research',
  });
  const analysis = await synthetic.child(parent, {
    slug: 'analyst',
    kind: 'delegation',
    task: 'Recommend what to do with the notes',
    toolCallId: 'call_analyst',
  });
  /** Moves a child and tells its parent's stream, as the runtime does. */
  const update = async (
    which: SyntheticChild,
    status: Run['status'],
    extra: Record<string, unknown> = {},
  ) => {
    const done =
      status === 'completed' ? { output: (extra.output as string | undefined) ?? null, usage: USAGE_52 } : {};
    await synthetic.setStatus(which.run.id, status, done);
    await synthetic.update(parent, which, status, extra);
  };
  return { parent, research, analysis, emit: synthetic.emit, update, storage: synthetic.storage };
}

describe.skipIf(!session.executable)('web console in chromium: status panel', () => {
  it(
    'status panel: cards move live from subagent_update events, show child progress, cancel a child (synthetic runs)',
    async () => {
      await ensureSignedIn(page, server);
      const { conversation } = await json<{ conversation: { id: string } }>(
        await server.api('/api/conversations', {
          method: 'POST',
          body: JSON.stringify({ agent_id: 'assistant', title: 'fan-out' }),
        }),
      );
      const fan = await syntheticFanOut(conversation.id);
      await fan.emit(fan.parent, 'metadata', { model: 'scripted:demo (scripted — not an LLM)' });
      await fan.emit(fan.parent, 'message_delta', { text: 'Handing this to the team.' });
      await fan.emit(fan.parent, 'tool_call', {
        tool_call_id: 'call_research',
        name: 'subagent_start',
        args: { subagent: 'researcher', description: fan.research.task },
      });

      await page.goto(`${server.url}/chat/${conversation.id}`);
      await poll(() => liveTurnText(page)).toContain('Handing this to the team.');
      const cards = page.getByRole('list', { name: 'Subagent runs' }).locator('article.subagent-card');
      const researchCard = page.locator(`article.subagent-card[data-run-id="${fan.research.run.id}"]`);
      const analysisCard = page.locator(`article.subagent-card[data-run-id="${fan.analysis.run.id}"]`);

      await fan.update(fan.research, 'pending');
      await poll(() => researchCard.getAttribute('data-status')).toBe('pending');
      await fan.update(fan.research, 'running');
      await fan.update(fan.analysis, 'running');
      await poll(() => cards.count()).toBe(2);
      await poll(() => researchCard.getAttribute('data-status')).toBe('running');
      expect(await researchCard.innerText()).toContain(fan.research.task);
      expect(await researchCard.innerText()).toContain(fan.research.thread);
      expect(await analysisCard.innerText()).toContain('delegation');

      // The child's own stream drives the progress line.
      await fan.emit(fan.research.run, 'metadata', { model: 'scripted:researcher' });
      await fan.emit(fan.research.run, 'tool_call', {
        tool_call_id: 'c_ls',
        name: 'ls',
        args: { path: 'notes' },
      });
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe('ls({"path":"notes"})');
      await fan.emit(fan.research.run, 'message_delta', { text: 'Found two notes: hello.md and plan.md' });
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe(
        'Found two notes: hello.md and plan.md',
      );

      // A reload rebuilds the panel (from the saved stream view, and from the panel endpoint when the server
      // has it) and resumes the parent's stream where it was: the streamed text is there once.
      await page.reload();
      await poll(() => cards.count()).toBe(2);
      await poll(() => researchCard.getAttribute('data-status')).toBe('running');
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe(
        'Found two notes: hello.md and plan.md',
      );
      expect((await liveTurnText(page)).split('Handing this to the team.').length - 1).toBe(1);

      await fan.update(fan.analysis, 'completed', { output: 'Archive the old notes.' });
      await poll(() => analysisCard.getAttribute('data-status')).toBe('completed');
      await poll(() => analysisCard.innerText()).toContain('Archive the old notes.');

      // Waiting for an approval: its own status, then cancelled from the card.
      await walkRunTo(fan.storage, fan.research.run.id, 'input_required');
      await fan.update(fan.research, 'input_required');
      await poll(() => researchCard.getAttribute('data-status')).toBe('input_required');
      expect(await researchCard.innerText()).toContain('Input required');
      await screenshot(page, '12-status-panel-live');
      await researchCard.getByRole('button', { name: 'Cancel Researcher' }).click();
      await poll(() => researchCard.getAttribute('data-status')).toBe('cancelled');
      expect(await researchCard.innerText()).toContain('Cancelled');
      expect(await researchCard.innerText()).not.toContain('Completed');
      expect((await fan.storage.runs.get(fan.research.run.id))?.status).toBe('cancelled');

      // A card opens the child thread, read-only.
      await researchCard.getByRole('button', { name: 'Open Researcher thread' }).click();
      const thread = page.getByRole('log', { name: 'Researcher messages' });
      await poll(() => thread.innerText()).toContain(fan.research.task);
      await screenshot(page, '13-child-thread');
      await page.getByRole('button', { name: '← Back' }).click();

      // The parent ends; the panel keeps the final statuses.
      await walkRunTo(fan.storage, fan.parent.id, 'completed', {
        finished_at: new Date().toISOString(),
        output: 'Done.',
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          total_tokens: 120,
          model_calls: 2,
          aborted_model_calls: 0,
        },
      });
      await fan.emit(fan.parent, 'end', { status: 'completed', output: 'Done.', error: null });
      await poll(() =>
        page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'),
      ).toBe('completed');
      expect(await analysisCard.getAttribute('data-status')).toBe('completed');
      expect(await researchCard.getAttribute('data-status')).toBe('cancelled');

      // The run tree nests both children under the parent.
      await page.goto(`${server.url}/runs/${fan.research.run.id}`);
      const tree = page.getByRole('list', { name: 'Run tree' });
      await tree.getByRole('article', { name: 'chat run of Assistant' }).waitFor();
      await tree.getByRole('article', { name: 'subagent run of Researcher' }).waitFor();
      await tree.getByRole('article', { name: 'delegation run of Analyst' }).waitFor();
      expect(await tree.getByRole('article', { name: 'delegation run of Analyst' }).innerText()).toContain(
        '52 tokens',
      );
      expect(await tree.locator('.run-children article').count()).toBe(2);
      await screenshot(page, '14-run-tree-nested');
    },
    E2E_TIMEOUT,
  );
});
