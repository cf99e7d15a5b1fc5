/**
 * What the console says about runs, in a real chromium: readable transcripts (safe Markdown, highlighted
 * code, child-run cards instead of raw JSON, a summary of awaited children, a footer per turn), the status
 * panel grouped by turn, states that tell the truth (awaiting approval, a neutral cancel, waiting to be
 * resumed, a live child thread), the agent card's surviving specs and the build report's spec indexes,
 * "will run" list, duplicate flag and marked lines. Skipped, with a message, when no chromium is installed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launchChromium,
  screenshot,
  type TestBrowser,
} from '../helpers/browser.js';
import {
  attributeOfAll,
  computedStyle,
  json,
  openSignedIn,
  poll,
  selectedText,
} from '../helpers/console-page.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns, USAGE_52 } from '../helpers/synthetic-runs.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const executable = chromiumPath();
if (!executable) console.warn('console chat e2e skipped: no chromium (set TROUPE_TEST_CHROMIUM)');

const TIMEOUT = 90_000;
const DANGER = 'rgb(180, 35, 24)';

let server: TestServer;
let browser: TestBrowser;
let page: Page;

if (executable) {
  await ensureConsoleBuilt();
  // A long lease: a run the test hands back to `pending` must stay there (the reconciler would re-queue it).
  server = await startTestServer({ leaseMs: 10 * 60_000 });
}

async function newConversation(title: string, agentId = 'assistant'): Promise<string> {
  const { conversation } = await json<{ conversation: { id: string } }>(
    await server.api('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent_id: agentId, title }),
    }),
  );
  return conversation.id;
}

/** `formatDuration` of the console for a stopped clock. */
function shownDuration(from: string, to: string): string {
  const ms = Math.max(0, Date.parse(to) - Date.parse(from));
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

beforeAll(async () => {
  if (!executable) return;
  browser = await launchChromium(executable);
  page = await browser.newPage();
  await openSignedIn(page, server, '/chat');
}, TIMEOUT);

afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(page, `failed-chat-${name}`).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!executable)('readable transcripts', () => {
  it(
    'renders model text as Markdown without raw HTML, highlights code, opens links safely, and ends each turn with its run',
    async () => {
      const synthetic = syntheticRuns(server);
      const conversationId = await newConversation('Markdown');
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

describe.skipIf(!executable)('status panel', () => {
  it(
    'groups children by turn (newest first, finished turns folded), names cards uniquely, counts tokens per card and in total, never cuts a word',
    async () => {
      const synthetic = syntheticRuns(server);
      const conversationId = await newConversation('Two turns');
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
      await poll(() => groups.count()).toBe(2);
      expect(await groups.nth(0).getAttribute('data-turn')).toBe('2');
      expect(await groups.nth(1).getAttribute('data-turn')).toBe('1');
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
    const conversationId = await newConversation('No children here');
    await page.goto(`${server.url}/chat/${conversationId}`);
    await page.getByRole('heading', { name: 'No children here' }).waitFor();
    await page.getByRole('log', { name: 'Messages' }).waitFor();
    expect(await page.getByRole('complementary', { name: 'Subagent status' }).count()).toBe(0);
    const box = await page.getByRole('region', { name: 'Conversation' }).boundingBox();
    expect(box?.width).toBeGreaterThan(1360 - 250 - 40);
  });
});

describe.skipIf(!executable)('states that tell the truth', () => {
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
      const conversationId = await newConversation('Approvals', agent.agent.id);
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
      const conversationId = await newConversation('States');
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
      const rootConversation = await newConversation('Paused turn');
      const root = await synthetic.parent(rootConversation, 'paused root', 'running');
      await walkRunTo(synthetic.storage, root.id, 'pending', { worker_id: null, lease_expires_at: null });
      await page.goto(`${server.url}/chat/${rootConversation}`);
      await poll(() => page.getByLabel('Run status').locator('[data-phase="resuming"]').count()).toBe(1);
      expect(await page.getByLabel('Run status').innerText()).toContain('Waiting to resume');
    },
    TIMEOUT,
  );
});

describe.skipIf(!executable)('agents and the build report', () => {
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
      expect(await byCode('no_tools')).toContain('in spec #0 helper');
      expect(await byCode('invalid_name')).toContain('in spec #1 bad name');
      expect(await byCode('replaces_dropped')).toContain('in spec #2 helper');
      expect(await byCode('unknown_tool')).toContain('in spec #3 scout');

      const willRun = report.getByRole('list', { name: 'Subagents that will run' });
      const rows = willRun.locator(':scope > li');
      expect(await attributeOfAll(rows, 'data-name')).toEqual(['general-purpose', 'helper', 'scout']);
      expect(await attributeOfAll(rows, 'data-spec-index')).toEqual([null, '2', '3']);
      const flagged = willRun.locator('li.flagged');
      expect(await flagged.count()).toBe(1);
      expect(await flagged.innerText()).toContain('Runs only because spec #0 of the same name was dropped');
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
