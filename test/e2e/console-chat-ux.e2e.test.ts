/**
 * What the console says about runs, in a real chromium: readable transcripts (safe Markdown, highlighted
 * code, child-run cards instead of raw JSON, a summary of awaited children, a footer per turn) and the status
 * panel grouped by turn. Skipped, with a message, when no chromium is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import {
  attributeOfAll,
  computedStyle,
  createConversation,
  openSignedIn,
  poll,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns, USAGE_52 } from '../helpers/synthetic-runs.js';

const TIMEOUT = 90_000;

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

describe.skipIf(!session.executable)('readable transcripts', () => {
  it(
    'renders model text as Markdown without raw HTML, highlights code, opens links safely, and ends each turn with its run',
    async () => {
      const synthetic = syntheticRuns(server);
      const conversationId = await createConversation(server, 'Markdown');
      const run = await synthetic.parent(conversationId, 'show me markdown', 'completed');
      await synthetic.setStatus(run.id, 'completed', { usage: USAGE_52, started_at: run.created_at });
      const text = [
        '# Plan',
        '',
        'Some **bold** text, a [docs link](https://example.com/docs) and a [bad link](javascript:window.__xss=2).',
        '',
        '<img src="x" onerror="window.__xss=1"> <b class="raw">raw html</b>',
        '',
        '```ts',
        'const answer: number = 42;',
        '```',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
      ].join('\n');
      await server.troupe.storage.messages.append(run.thread_id, run.id, 1, [
        { role: 'assistant', content: [{ type: 'text', text }] },
      ]);
      await page.goto(`${server.url}/chat/${conversationId}`);
      const log = page.getByRole('log', { name: 'Messages' });
      await log.locator('strong', { hasText: 'bold' }).waitFor();
      const link = log.getByRole('link', { name: 'docs link' });
      expect(await link.getAttribute('href')).toBe('https://example.com/docs');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect((await link.getAttribute('rel'))?.split(' ').sort()).toEqual(['noopener', 'noreferrer']);
      expect(await log.getByText('bad link').getAttribute('href')).not.toMatch(/javascript/i);
      expect(await log.locator('img, b.raw, script').count()).toBe(0);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      const code = log.locator('pre code.hljs.language-ts');
      expect(await code.locator('.hljs-keyword').first().innerText()).toBe('const');
      expect(await log.locator('table td').allInnerTexts()).toEqual(['1', '2']);
      expect(await log.getByRole('heading', { name: 'Plan' }).count()).toBe(1);

      const footer = log.getByRole('group', { name: 'Run of this answer' });
      expect(await footer.innerText()).toMatch(/Completed[\s\S]*52 tokens · 1 model call/);
      expect(await footer.getByRole('link', { name: /Trace/ }).getAttribute('href')).toBe(`/runs/${run.id}`);
      await screenshot(page, 'chat-markdown');
    },
    TIMEOUT,
  );

  it(
    'shows task, subagent and delegate calls as cards that open the child transcript, and subagent_await as one line per child',
    async () => {
      const team = await server.chat('team: research the notes and summarise them');
      await page.goto(`${server.url}/chat/${team.conversationId}`);
      const log = page.getByRole('log', { name: 'Messages' });
      await poll(() => log.getByRole('group', { name: 'Run of this answer' }).innerText(), {
        timeout: 30_000,
      }).toContain('Completed');
      const started = log.getByRole('group', { name: 'Started Researcher' });
      expect(await started.getAttribute('data-status')).toBe('completed');
      const line = await started.locator('.child-call-line').innerText();
      expect(line).toMatch(/Researcher · Completed [\d.]+ (ms|s)/);
      expect(line).not.toContain('{');
      await started.getByRole('button', { name: 'Open Researcher transcript' }).click();
      const child = started.getByRole('log', { name: 'Researcher transcript' });
      await poll(() => child.innerText()).toContain('Research this for the team');
      // Nested in the parent's answer, the task keeps its own (readable) bubble.
      const task = child.getByRole('listitem', { name: 'Task message' }).locator('.turn-body');
      expect(await computedStyle(task, 'backgroundColor')).toBe('rgb(47, 95, 208)');
      // The child's answer is Markdown too: its bullet list is a list.
      await poll(() => child.locator('.markdown li', { hasText: 'Scope:' }).count()).toBe(1);

      const awaited = log.getByRole('group', { name: 'Awaited subagents' });
      const rows = awaited.locator('.await-children > li');
      expect(await rows.count()).toBe(2);
      const text = await awaited.locator('.await-children').innerText();
      expect(text).toMatch(/Researcher\s+✓\s*Completed/);
      expect(text).toMatch(/Summarizer\s+✓\s*Completed/);
      expect(text).not.toContain('"run_id"');
      await screenshot(page, 'chat-child-cards');

      const analyst = await server.chat('Ask the analyst whether we should archive the notes');
      await page.goto(`${server.url}/chat/${analyst.conversationId}`);
      const delegated = page
        .getByRole('log', { name: 'Messages' })
        .getByRole('group', { name: 'Delegated to Analyst' });
      await poll(() => delegated.getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
      expect(await delegated.innerText()).toContain('⇢');
    },
    TIMEOUT,
  );
});

describe.skipIf(!session.executable)('status panel', () => {
  it(
    'groups children by turn (newest first, finished turns folded), names cards uniquely, counts tokens per card and in total, never cuts a word',
    async () => {
      const synthetic = syntheticRuns(server);
      const conversationId = await createConversation(server, 'Two turns');
      const first = await synthetic.parent(conversationId, 'first turn: research');
      const early = await synthetic.child(first, {
        slug: 'researcher',
        kind: 'subagent',
        task: 'Early research',
      });
      await synthetic.setStatus(early.run.id, 'completed', { output: 'Found it.', usage: USAGE_52 });
      await synthetic.setStatus(first.id, 'completed');
      const second = await synthetic.parent(conversationId, 'second turn: research again');
      const late = await synthetic.child(second, {
        slug: 'researcher',
        kind: 'subagent',
        task: 'Late research',
      });
      await synthetic.setStatus(late.run.id, 'running');
      const summary = await synthetic.child(second, {
        slug: 'summarizer',
        kind: 'subagent',
        task: 'Summarise',
      });
      await synthetic.setStatus(summary.run.id, 'running');

      await page.goto(`${server.url}/chat/${conversationId}`);
      const groups = page.getByRole('list', { name: 'Subagent runs' }).locator(':scope > li');
      // Groups show as soon as the children load; their turn numbers once the conversation's runs have.
      await poll(() => attributeOfAll(groups, 'data-turn')).toEqual(['2', '1']);
      expect(
        await groups
          .nth(0)
          .getByRole('button', { name: /Turn 2/ })
          .getAttribute('aria-expanded'),
      ).toBe('true');
      const turn1 = groups.nth(1).getByRole('button', { name: /Turn 1/ });
      expect(await turn1.getAttribute('aria-expanded')).toBe('false');
      expect(await groups.nth(1).locator('ul').isVisible()).toBe(false);

      const totals = page.locator('.panel-totals');
      expect(await totals.innerText()).toBe('Total 3 runs (2 active) · 52 tokens · 1 model call');

      // A finished card is folded to one line with its outcome and usage; it unfolds on request.
      await turn1.click();
      // Unique accessible names: the researcher ran twice.
      expect(await page.getByRole('article', { name: 'Researcher #1 run', exact: true }).count()).toBe(1);
      expect(await page.getByRole('article', { name: 'Researcher #2 run', exact: true }).count()).toBe(1);
      const done = page.getByRole('article', { name: 'Researcher #1 run' });
      const unfold = done.getByRole('button', { name: 'Unfold Researcher #1 details' });
      expect(await unfold.getAttribute('aria-expanded')).toBe('false');
      expect(await done.innerText()).toContain('52 tokens · 1 model call');
      expect(await done.innerText()).toContain('Found it.');
      expect(await done.getByText('Early research').isVisible()).toBe(false);
      await unfold.click();
      await done.getByText('Early research').waitFor();

      // The latest progress is cut at a word, never inside one.
      const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda ';
      await synthetic.emit(late.run, 'metadata', { model: 'scripted:researcher' });
      await synthetic.emit(late.run, 'message_delta', { text: words.repeat(4) });
      const progress = page.getByRole('article', { name: 'Researcher #2 run' }).getByLabel('Latest progress');
      await poll(() => progress.innerText()).toMatch(/^…/);
      const shown = await progress.innerText();
      expect(words.split(' ')).toContain(shown.slice(1).split(' ')[0]);
      expect(shown.length).toBeLessThanOrEqual(80);
      await screenshot(page, 'status-panel-turns');
    },
    TIMEOUT,
  );

  it('takes no column at all in a conversation without child runs', async () => {
    const conversationId = await createConversation(server, 'No children here');
    await page.goto(`${server.url}/chat/${conversationId}`);
    await page.getByRole('heading', { name: 'No children here' }).waitFor();
    await page.getByRole('log', { name: 'Messages' }).waitFor();
    expect(await page.getByRole('complementary', { name: 'Subagent status' }).count()).toBe(0);
    const box = await page.getByRole('region', { name: 'Conversation' }).boundingBox();
    expect(box?.width).toBeGreaterThan(1360 - 250 - 40);
  });
});
