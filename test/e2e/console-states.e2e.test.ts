/**
 * Console states that tell the truth, in a real chromium: awaiting approval, a neutral cancel, waiting to be
 * resumed, a live child thread; and the agent card's surviving specs and the build report's spec indexes,
 * "will run" list, duplicate flag and marked lines. Skipped, with a message, when no chromium is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import {
  attributeOfAll,
  computedStyle,
  createConversation,
  json,
  openSignedIn,
  poll,
  selectedText,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns } from '../helpers/synthetic-runs.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const TIMEOUT = 90_000;
const DANGER = 'rgb(180, 35, 24)';

const session = await consoleSession({
  name: 'console chat e2e',
  failedPrefix: 'failed-chat-',
  // A long lease: a run the test hands back to `pending` must stay there (the reconciler would re-queue it).
  server: { leaseMs: 10 * 60_000 },
  ready: ({ page, server }) => openSignedIn(page, server, '/chat'),
  timeout: TIMEOUT,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

/** `formatDuration` of the console for a stopped clock. */
function shownDuration(from: string, to: string): string {
  const ms = Math.max(0, Date.parse(to) - Date.parse(from));
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

describe.skipIf(!session.executable)('states that tell the truth', () => {
  it(
    'a call waiting for approval says "awaiting approval" and the approval prompt takes the focus',
    async () => {
      const agent = await json<{ agent: { id: string } }>(
        await server.api('/api/agent', {
          method: 'POST',
          body: JSON.stringify({
            name: 'Careful',
            config: {
              model: 'scripted:demo',
              tools: ['write_file', 'read_file'],
              tool_approval_mode: 'default',
            },
          }),
        }),
      );
      const conversationId = await createConversation(server, 'Approvals', agent.agent.id);
      await page.goto(`${server.url}/chat/${conversationId}`);
      await page.getByLabel('Message', { exact: true }).fill('hello');
      await page.getByRole('button', { name: 'Send' }).click();
      const card = page.getByRole('group', { name: 'Tool call write_file' });
      await poll(() => card.getAttribute('data-state'), { timeout: 20_000 }).toBe('awaiting');
      expect(await card.innerText()).toContain('awaiting approval');
      expect(await card.innerText()).not.toContain('running…');
      const prompt = page.getByRole('alertdialog', { name: 'Approve write_file?' });
      await prompt.waitFor();
      await poll(() => page.evaluate('!!document.activeElement?.closest("[role=alertdialog]")')).toBe(true);
      await screenshot(page, 'state-awaiting-approval');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement?.textContent')).toBe('Approve');
      await page.keyboard.press('Enter');
      await poll(() => card.getAttribute('data-state'), { timeout: 20_000 }).toBe('done');
    },
    TIMEOUT,
  );

  it(
    'shows a cancelled child neutrally, a run waiting to be resumed with its clock paused, and a child thread streaming live',
    async () => {
      const synthetic = syntheticRuns(server);
      const conversationId = await createConversation(server, 'States');
      const parent = await synthetic.parent(conversationId, 'states: cancel one, pause one');
      await synthetic.emit(parent, 'metadata', { model: 'scripted:demo' });
      const cancelled = await synthetic.child(parent, {
        slug: 'researcher',
        kind: 'subagent',
        task: 'Cancelled task',
      });
      await synthetic.emit(parent, 'tool_call', {
        step: 1,
        tool_call_id: cancelled.toolCallId,
        name: 'task',
        args: { subagent_slug: 'researcher', description: cancelled.task },
      });
      await synthetic.setStatus(cancelled.run.id, 'cancelled', {
        error: { type: 'cancelled', message: 'Cancelled by the user' },
      });
      // Handed back by a worker that stopped (what a graceful restart leaves): pending, but started.
      const paused = await synthetic.child(parent, {
        slug: 'summarizer',
        kind: 'subagent',
        task: 'Paused task',
      });
      await synthetic.setStatus(paused.run.id, 'running', {
        started_at: new Date(Date.now() - 4200).toISOString(),
      });
      const handedBack = await walkRunTo(synthetic.storage, paused.run.id, 'pending', {
        worker_id: null,
        lease_expires_at: null,
      });
      const live = await synthetic.child(parent, { slug: 'analyst', kind: 'delegation', task: 'Live task' });
      await synthetic.setStatus(live.run.id, 'running');

      await page.goto(`${server.url}/chat/${conversationId}`);
      // Cancelled: a neutral fact, in the panel and in the transcript.
      const cancelledCard = page.getByRole('article', { name: 'Researcher run' });
      await poll(() => cancelledCard.getAttribute('data-status')).toBe('cancelled');
      const outcome = cancelledCard.locator('.card-outcome');
      expect(await outcome.innerText()).toContain('Cancelled');
      expect(await computedStyle(outcome, 'color')).not.toBe(DANGER);
      const call = page
        .getByRole('log', { name: 'Messages' })
        .getByRole('group', { name: 'Task for Researcher' });
      await poll(() => call.getAttribute('class')).toContain('tone-neutral');
      expect(await computedStyle(call, 'borderLeftColor')).not.toBe(DANGER);

      // Waiting to be resumed: said so, and its clock stopped when it was handed back.
      const pausedCard = page.getByRole('article', { name: 'Summarizer run' });
      const expected = shownDuration(handedBack.started_at ?? '', handedBack.updated_at);
      await poll(() => pausedCard.locator('[data-phase="resuming"]').innerText()).toContain(
        'Waiting to resume',
      );
      expect(await pausedCard.locator('.card-time').innerText()).toBe(`${expected} (paused)`);
      await screenshot(page, 'state-cancelled-and-paused');

      // The child thread streams: text that exists only as live events shows up.
      await page
        .getByRole('article', { name: 'Analyst run' })
        .getByRole('button', { name: 'Open Analyst thread' })
        .click();
      const thread = page.getByRole('log', { name: 'Analyst messages' });
      await poll(() => thread.innerText()).toContain('Live task');
      await synthetic.emit(live.run, 'metadata', { model: 'scripted:analyst' });
      await synthetic.emit(live.run, 'message_delta', { text: 'Streaming words into the thread' });
      await poll(() => thread.innerText()).toContain('Streaming words into the thread');
      await screenshot(page, 'state-child-thread-live');

      // The same pause in the trace and in the runs explorer.
      await page.goto(`${server.url}/runs/${paused.run.id}`);
      const row = page.getByRole('article', { name: 'subagent run of Summarizer' });
      await poll(() => row.locator('[data-phase="resuming"]').count()).toBe(1);
      expect(await row.locator('.trace-facts').innerText()).toContain(expected);
      await page.goto(`${server.url}/runs?q=Paused%20task`);
      const listed = page.locator(`tr[data-run-id="${paused.run.id}"]`);
      await poll(() => listed.innerText()).toContain('Waiting to resume');
      expect(await listed.innerText()).toContain(`${expected} (paused)`);

      // A conversation whose own run was handed back says so in its header.
      const rootConversation = await createConversation(server, 'Paused turn');
      const root = await synthetic.parent(rootConversation, 'paused root', 'running');
      await walkRunTo(synthetic.storage, root.id, 'pending', { worker_id: null, lease_expires_at: null });
      await page.goto(`${server.url}/chat/${rootConversation}`);
      await poll(() => page.getByLabel('Run status').locator('[data-phase="resuming"]').count()).toBe(1);
      expect(await page.getByLabel('Run status').innerText()).toContain('Waiting to resume');
    },
    TIMEOUT,
  );
});

describe.skipIf(!session.executable)('agents and the build report', () => {
  const SPECS = [
    { name: 'helper', description: 'first', system_prompt: 'p', tools: [] },
    { name: 'bad name', description: 'd', system_prompt: 'p' },
    { name: 'helper', description: 'second', system_prompt: 'p', tools: ['read_file'] },
    { name: 'scout', description: 'd', system_prompt: 'p', tools: ['read_file', 'no_such_tool'] },
  ];

  it('the agent card counts only the inline specs that survive', async () => {
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Spec holder',
        config: { model: 'scripted:demo', tools: ['read_file'], subagent_specs: SPECS },
      }),
    });
    await page.goto(`${server.url}/agents`);
    const card = page.getByRole('article', { name: 'Spec holder' });
    await poll(() => card.locator('.inline-specs').innerText()).toBe(' + 2 inline (2 of 4 dropped)');
  });

  it(
    'names each entry by spec index, always lists what will run, flags a duplicate that runs only because of a drop, and marks the line',
    async () => {
      await page.goto(`${server.url}/agents/new?kind=agent`);
      await page.getByLabel('Name').fill('Reporter');
      await page.getByLabel('Tools').fill('read_file');
      await page.getByLabel('Tools').press('Enter');
      const text = JSON.stringify(SPECS, null, 2);
      await page.getByLabel('Inline subagent specs (JSON)').fill(text);
      const report = page.getByRole('region', { name: 'Build report' });
      const warnings = report.locator('.build-warning');
      await poll(() => warnings.count(), { timeout: 15_000 }).toBe(4);
      const byCode = async (code: string) =>
        report.locator(`.build-warning[data-code="${code}"]`).innerText();
      // Specs are numbered from 1, like the editor's lines; the API's spec_index stays 0-based.
      expect(await byCode('no_tools')).toContain('in spec #1 helper');
      expect(await byCode('invalid_name')).toContain('in spec #2 bad name');
      expect(await byCode('replaces_dropped')).toContain('in spec #3 helper');
      expect(await byCode('unknown_tool')).toContain('in spec #4 scout');
      // The counts match the list: two specs dropped; scout loses a tool but still runs (it is in "Will run").
      expect(await report.locator('.report-counts').innerText()).toBe(
        '2 specs dropped, 1 value removed (its spec still runs), 1 warning:',
      );
      expect(await byCode('unknown_tool')).toContain('removed; the spec still runs');
      expect(await byCode('no_tools')).toContain('spec dropped');

      const willRun = report.getByRole('list', { name: 'Subagents that will run' });
      const rows = willRun.locator(':scope > li');
      expect(await attributeOfAll(rows, 'data-name')).toEqual(['general-purpose', 'helper', 'scout']);
      expect(await attributeOfAll(rows, 'data-spec-index')).toEqual([null, '2', '3']);
      const flagged = willRun.locator('li.flagged');
      expect(await flagged.count()).toBe(1);
      expect(await flagged.innerText()).toContain('Runs only because spec #1 of the same name was dropped');
      expect(await flagged.innerText()).toContain('#3 helper');
      expect(await willRun.locator('li[data-name="scout"]').innerText()).toContain('read_file');

      // The offending value's line is marked in the gutter and one click selects it.
      const unknownLine = text.split('\n').findIndex((line) => line.includes('no_such_tool')) + 1;
      expect(await page.locator(`.spec-gutter [data-line="${unknownLine}"]`).getAttribute('class')).toContain(
        'marked',
      );
      await report
        .locator('.build-warning[data-code="unknown_tool"]')
        .getByRole('button', { name: `line ${unknownLine}` })
        .click();
      const selected = await selectedText(page.getByLabel('Inline subagent specs (JSON)'));
      expect(selected).toContain('no_such_tool');
      await screenshot(page, 'build-report-indexes');

      // With nothing wrong, the "will run" list is still there.
      await page.getByLabel('Inline subagent specs (JSON)').fill(JSON.stringify([SPECS[2]], null, 2));
      await poll(() => warnings.count()).toBe(0);
      await poll(() => willRun.locator(':scope > li').count()).toBe(2);
      expect(await report.innerText()).toContain('No warnings');
    },
    TIMEOUT,
  );
});
