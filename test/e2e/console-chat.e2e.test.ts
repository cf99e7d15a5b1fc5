/**
 * Chatting in the web console in a real chromium against the real server with the demo data: streamed
 * answers and tool calls, an approval, a cancel mid-stream, the run tree, and live subagent and delegation
 * cards. Skipped, with a message, when no chromium binary is installed.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { consoleSession } from '../helpers/console-session.js';
import { copyScenarios, withRuleDelay, withRuleFirst } from '../helpers/scenario-dir.js';
import {
  attributeOfAll,
  ensureSignedIn,
  json,
  liveTurnText,
  poll,
  startConversation,
} from '../helpers/console-page.js';
import type { TestServer } from '../helpers/start-test-server.js';

const E2E_TIMEOUT = 60_000;

// The runs these tests cancel take long enough that a loaded CI machine cannot finish them first: the demo's
// slow answer streams over 30 s instead of 8, and a researcher told to take its time waits 120 s.
const scenarioDir = copyScenarios((file, scenario) => {
  if (file === 'demo.yaml') return withRuleDelay(scenario, 'slow', 30_000);
  if (file !== 'researcher.yaml') return scenario;
  return withRuleFirst(scenario, {
    name: 'patient',
    when: { contains: 'take your time' },
    steps: [{ text: 'Taking my time with this one.', delay_ms: 120_000 }],
  });
});
afterAll(() => rmSync(scenarioDir, { recursive: true, force: true }));

const session = await consoleSession({
  name: 'console e2e',
  failedPrefix: 'failed-',
  noForeignRequests: true,
  server: { scenarioDir },
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

describe.skipIf(!session.executable)('web console in chromium: chat', () => {
  it(
    "shows a graded child's verdict: needs revision, then satisfied, on its cards, after a reload, in the trace and the runs filter",
    async () => {
      await ensureSignedIn(page, server);
      const conversationId = await startConversation(page, 'verify: summarise the notes');
      const taskCard = page.locator('.child-call[data-tool="task"]');
      await poll(() => taskCard.locator('[data-verdict]').getAttribute('data-verdict'), {
        timeout: 30_000,
      }).toBe('satisfied');
      // The status cards took the parent's verdict events: the first answer's run, then its revision's.
      const statusVerdicts = page.locator('.subagent-card [data-verdict]');
      await poll(() => attributeOfAll(statusVerdicts, 'data-verdict')).toEqual([
        'needs_revision',
        'satisfied',
      ]);
      await screenshot(page, '05-chat-verdict');

      await page.reload();
      await poll(() => taskCard.locator('[data-verdict]').getAttribute('data-verdict')).toBe('satisfied');
      // After a reload the status cards have the stored verdicts (the panel's list carries them), and a reason
      // that contains "; " is still one reason.
      await poll(() => attributeOfAll(statusVerdicts, 'data-verdict')).toEqual([
        'needs_revision',
        'satisfied',
      ]);
      expect(await taskCard.locator('.verdict-reasons li').allInnerTexts()).toEqual([
        'The summary ends with its word count; nothing else was asked.',
      ]);

      const { runs } = await json<{ runs: { id: string; run_type: string }[] }>(
        await server.api(`/api/agent/runs?conversation_id=${conversationId}&kind=chat`),
      );
      const parent = runs[0];
      expect(parent).toBeDefined();
      await page.goto(`${server.url}/runs/${parent?.id ?? ''}`);
      const verdicts = page.locator('.trace-verdicts [data-verdict]');
      // Each verdict is marked: the first answer's needs_revision, then the revision's satisfied.
      await poll(() => attributeOfAll(verdicts, 'data-verdict')).toEqual(['needs_revision', 'satisfied']);
      expect(await page.locator('.trace-verdicts').innerText()).toContain('needs revision');
      await poll(() => page.locator('.trace-row[data-edge="grader"]').count()).toBe(2);

      await page.goto(`${server.url}/runs?verdict=needs_revision`);
      await poll(() => page.locator('tr[data-run-id]').count()).toBeGreaterThan(0);
      expect(await page.getByRole('checkbox', { name: 'Verdict needs revision' }).isChecked()).toBe(true);
    },
    E2E_TIMEOUT,
  );

  it(
    'runs the demo conversation: streamed answer and tool calls, nothing doubled after a reload',
    async () => {
      await ensureSignedIn(page, server);
      const conversationId = await startConversation(page, 'hello');
      await page.getByRole('group', { name: 'Tool call write_file' }).waitFor();
      await page.getByRole('group', { name: 'Tool call read_file' }).waitFor();
      const log = page.getByRole('log', { name: 'Messages' });
      await poll(() => log.innerText(), { timeout: 15_000 }).toContain('You said: "hello"');
      await poll(() =>
        page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'),
      ).toBe('completed');
      // Tool results are there: open the write_file card.
      await page.getByRole('group', { name: 'Tool call write_file' }).locator('summary').click();
      await poll(() => page.getByRole('group', { name: 'Tool call write_file' }).innerText()).toContain(
        'Created',
      );
      await screenshot(page, '05-chat-hello');

      await page.reload();
      await poll(() => log.innerText()).toContain('You said: "hello"');
      const text = await log.innerText();
      expect(text.split('You said: "hello"').length - 1).toBe(1);
      expect(await page.getByRole('group', { name: 'Tool call write_file' }).count()).toBe(1);
      // The conversation took its first message as its title.
      await poll(() => page.getByRole('navigation', { name: 'Conversation list' }).innerText()).toContain(
        'hello',
      );
      expect(conversationId).toMatch(/^cnv_/);
    },
    E2E_TIMEOUT,
  );

  it(
    'approves a real pending approval: the prompt closes, the run completes and the file is written',
    async () => {
      await ensureSignedIn(page, server);
      // A main agent in `default` approval mode: the demo scenario's write_file waits for a human decision.
      const created = await server.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          name: 'Careful writer',
          slug: 'careful-writer',
          config: {
            model: 'scripted:demo',
            tools: ['read_file', 'write_file'],
            tool_approval_mode: 'default',
          },
        }),
      });
      expect(created.status).toBe(201);
      await page.reload();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      const conversationId = await startConversation(page, 'approved from the console', 'Careful writer');

      const prompt = page.getByRole('alertdialog', { name: 'Approve write_file?' });
      await prompt.waitFor({ timeout: 15_000 });
      const badge = page.getByLabel('Run status').locator('[data-status]');
      await poll(() => badge.getAttribute('data-status')).toBe('input_required');
      const { runs } = await json<{ runs: { id: string; status: string }[] }>(
        await server.api(`/api/conversations/${conversationId}/runs`),
      );
      const runId = runs[0]?.id ?? '';
      const conversation = await server.troupe.storage.conversations.get(conversationId);
      const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
      const note = path.join(project?.workdir ?? '', 'notes/hello.md');
      const noteText = () => (existsSync(note) ? readFileSync(note, 'utf8') : '');
      expect(noteText()).not.toContain('approved from the console');
      await screenshot(page, '11-approval-prompt');

      await prompt.getByRole('button', { name: 'Approve', exact: true }).click();
      // The server must accept the decision: the prompt closes, and never shows an error alert.
      await poll(() => prompt.count()).toBe(0);
      const { approvals } = await json<{ approvals: { status: string; tool_name: string }[] }>(
        await server.api(`/api/agent/runs/${runId}/approvals`),
      );
      expect(approvals).toMatchObject([{ tool_name: 'write_file', status: 'approved' }]);
      await poll(() => badge.getAttribute('data-status'), { timeout: 15_000 }).toBe('completed');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText(), {
        timeout: 15_000,
      }).toContain('You said: "approved from the console"');
      // The approved tool's effect: the note is on disk with the message in it.
      expect(noteText()).toBe('# Hello\n\napproved from the console\n');
      expect(
        (await json<{ run: { status: string } }>(await server.api(`/api/agent/runs/${runId}`))).run.status,
      ).toBe('completed');
    },
    E2E_TIMEOUT,
  );

  it(
    'streams a slow answer, resumes it after a reload without doubling, and Cancel ends it as cancelled',
    async () => {
      await ensureSignedIn(page, server);
      const conversationId = await startConversation(page, 'please be slow');
      // The whole first phrase before the reload: what the restored view holds must appear once, not cut.
      await poll(() => liveTurnText(page), { timeout: 10_000 }).toContain('You asked for something slow');
      await screenshot(page, '06-chat-slow-streaming');

      // Reload mid-stream: the page finds the active run and resumes from the seq it stored.
      const before = await liveTurnText(page);
      await page.reload();
      await poll(async () => (await liveTurnText(page)).length, { timeout: 10_000 }).toBeGreaterThan(
        before.length,
      );
      const resumed = await liveTurnText(page);
      if (resumed.split('You asked for something slow').length - 1 !== 1) {
        const turns = await page.locator('li.turn').allInnerTexts();
        console.log('RESUME-DEBUG', JSON.stringify({ before, resumed: resumed.slice(0, 300), turns }));
      }
      expect(resumed.split('You asked for something slow').length - 1).toBe(1);

      await page.getByRole('button', { name: 'Cancel run' }).click();
      const badge = page.getByLabel('Run status').locator('[data-status]');
      await poll(() => badge.getAttribute('data-status'), { timeout: 10_000 }).toBe('cancelled');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText()).toContain('Run cancelled');
      expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
      await screenshot(page, '07-chat-cancelled');

      const { runs } = await json<{ runs: { status: string }[] }>(
        await server.api(`/api/conversations/${conversationId}/runs`),
      );
      expect(runs[0]?.status).toBe('cancelled');

      // After a reload the partial answer comes from the stored thread, marked as cancelled.
      await page.reload();
      const partial = page.getByRole('log', { name: 'Messages' }).locator('.turn-text.partial');
      await poll(() => partial.innerText()).toMatch(/^You asked for[\s\S]* — cancelled$/);
      await screenshot(page, '07-chat-cancelled-reloaded');
    },
    E2E_TIMEOUT,
  );

  it(
    'shows the run tree with status, duration and token usage per node',
    async () => {
      await ensureSignedIn(page, server);
      await startConversation(page, 'hello again');
      await poll(() => page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'), {
        timeout: 15_000,
      }).toBe('completed');
      await page.getByRole('link', { name: 'Trace', exact: true }).first().click();
      const root = page.getByRole('list', { name: 'Run tree' }).getByRole('article').first();
      await root.waitFor();
      const text = await root.innerText();
      expect(text).toContain('Completed');
      expect(text).toMatch(/\d+ tokens/);
      expect(text).toMatch(/[\d.]+ (ms|s) ·/);
      await screenshot(page, '08-run-tree');
    },
    E2E_TIMEOUT,
  );

  it('shows subagent runs in the status panel live and cancels a child', async () => {
    await ensureSignedIn(page, server);
    // The researcher is held running until it is cancelled (see the scenario copy); the summarizer finishes
    // on its own.
    await startConversation(page, 'team: research the notes and summarise them, take your time');
    const cards = page.getByRole('list', { name: 'Subagent runs' }).locator('article.subagent-card');
    await poll(() => cards.count(), { timeout: 20_000 }).toBe(2);
    const researcher = cards.filter({ has: page.getByRole('button', { name: 'Open Researcher thread' }) });
    const summarizer = cards.filter({ hasNot: page.getByRole('button', { name: 'Open Researcher thread' }) });
    // Statuses move without a reload.
    await poll(() => researcher.getAttribute('data-status'), { timeout: 20_000 }).toBe('running');
    await poll(() => summarizer.getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
    const cancelled = await researcher.getAttribute('data-run-id');
    await screenshot(page, '15-status-panel-real');
    await researcher.getByRole('button', { name: /^Cancel / }).click();
    const card = page.locator(`article.subagent-card[data-run-id="${cancelled}"]`);
    await poll(() => card.getAttribute('data-status'), { timeout: 15_000 }).toBe('cancelled');
    expect(await card.innerText()).toContain('Cancelled');
    expect(await card.innerText()).not.toContain('Completed');
    // Opening a card shows the child's thread, read-only. The parent may finish its turn at any moment, and
    // a finished turn folds: unfold it when it is folded (it stays as the user left it), and try again if it
    // folded between the look and the click.
    const openCard = card.getByRole('button', { name: /^Open / });
    const turn = page.locator('li.turn-group').filter({ has: card });
    await poll(
      async () => {
        if (((await turn.getAttribute('class')) ?? '').includes('folded')) {
          await turn.locator('.turn-group-toggle').click();
        }
        return openCard.click({ timeout: 2_000 }).then(
          () => true,
          () => false,
        );
      },
      { timeout: 15_000 },
    ).toBe(true);
    await page.getByRole('button', { name: '← Back' }).waitFor();
    expect(await page.getByLabel('Message', { exact: true }).isVisible()).toBe(true);
    await screenshot(page, '16-status-panel-real-cancelled');
    await page.getByRole('button', { name: '← Back' }).click();
  }, 90_000);

  it(
    'shows a delegation to an expert as a delegation card that ends completed',
    async () => {
      await ensureSignedIn(page, server);
      await startConversation(page, 'Ask the analyst whether we should archive the notes');
      const card = page
        .getByRole('list', { name: 'Subagent runs' })
        .locator('article.subagent-card')
        .filter({ hasText: 'delegation' });
      await poll(() => card.count(), { timeout: 20_000 }).toBe(1);
      await poll(() => card.getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
      expect(await card.innerText()).toContain('Analyst');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText(), {
        timeout: 20_000,
      }).toContain('The analyst expert answered');
      await screenshot(page, '17-delegation');
    },
    E2E_TIMEOUT,
  );
});
