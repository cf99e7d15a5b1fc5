/**
 * The console on a phone (390 × 844) and for keyboard and screen-reader users, in a real chromium: no page
 * scrolls sideways, the chat is one column (conversation drawer, "Subagents (n)" sheet, folded menu, pinned
 * composer), axe-core finds no serious or critical violation on any page, and everything works by keyboard
 * with a visible focus ring. Skipped, with a message, when no chromium binary is installed.
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
import { horizontalExtent, json, openSignedIn, poll, seriousAxeViolations } from '../helpers/console-page.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns, USAGE_52 } from '../helpers/synthetic-runs.js';

const executable = chromiumPath();
if (!executable) console.warn('console mobile/a11y e2e skipped: no chromium (set TROUPE_TEST_CHROMIUM)');

const TIMEOUT = 120_000;
const PHONE = { width: 390, height: 844 };

let server: TestServer;
let browser: TestBrowser;
let page: Page;
let fixture: { conversationId: string; emptyConversationId: string; parentRunId: string; agentId: string };

if (executable) {
  await ensureConsoleBuilt();
  server = await startTestServer();
}

/** A conversation whose turn is running with a subagent (running) and a delegation (completed). */
async function seed(): Promise<typeof fixture> {
  const synthetic = syntheticRuns(server);
  const create = async (title: string) =>
    (
      await json<{ conversation: { id: string } }>(
        await server.api('/api/conversations', {
          method: 'POST',
          body: JSON.stringify({ agent_id: 'assistant', title }),
        }),
      )
    ).conversation.id;
  const conversationId = await create('Team work on the notes');
  const emptyConversationId = await create('Nothing yet');
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
  return { conversationId, emptyConversationId, parentRunId: parent.id, agentId: agent.agent.id };
}

/** Every page of the console, each with what shows it is ready. */
function pages(): { name: string; path: string; ready: (page: Page) => Promise<unknown> }[] {
  const heading = (name: string | RegExp) => (p: Page) =>
    p.getByRole('heading', { name, level: 1 }).first().waitFor();
  return [
    { name: 'chat-empty', path: '/chat', ready: heading('Chat') },
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
    { name: 'settings', path: '/settings', ready: heading('Settings') },
    { name: 'not-found', path: '/no/such/page', ready: heading('Not found') },
  ];
}

async function visit(target: Page, entry: ReturnType<typeof pages>[number]): Promise<void> {
  await target.goto(`${server.url}${entry.path}`);
  await entry.ready(target);
}

beforeAll(async () => {
  if (!executable) return;
  browser = await launchChromium(executable);
  page = await browser.newPage();
  fixture = await seed();
  await openSignedIn(page, server, '/chat');
}, TIMEOUT);

afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(page, `failed-mobile-${name}`).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!executable)('console on a phone and for assistive technology', () => {
  it(
    'no page scrolls sideways at 390 × 844 (screenshots of each)',
    async () => {
      await page.setViewportSize(PHONE);
      const wide: string[] = [];
      for (const entry of pages()) {
        await visit(page, entry);
        const extent = await horizontalExtent(page);
        if (extent.scrollWidth > PHONE.width) wide.push(`${entry.name}: ${extent.scrollWidth}px`);
        await screenshot(page, `phone-${entry.name}`);
      }
      // Signed out: the login page.
      await page.evaluate('localStorage.removeItem("troupe.token")');
      await page.goto(server.url);
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      if ((await horizontalExtent(page)).scrollWidth > PHONE.width) wide.push('login');
      await screenshot(page, 'phone-login');
      await openSignedIn(page, server, '/chat');
      expect(wide).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'on a phone the chat is one column: folded menu, conversation drawer, subagents sheet, pinned composer',
    async () => {
      await page.setViewportSize(PHONE);
      await visit(page, pages()[1] as ReturnType<typeof pages>[number]);

      // The top menu is folded behind one button.
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      await menu.click();
      await page.getByRole('link', { name: 'Runs' }).waitFor({ state: 'visible' });
      await screenshot(page, 'phone-menu-open');
      await menu.click();
      await poll(() => page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);

      // The conversation list is a drawer; Escape closes it and gives focus back to its button.
      const drawerButton = page.getByRole('button', { name: 'Conversations' });
      const list = page.getByRole('navigation', { name: 'Conversation list' });
      expect(await list.isVisible()).toBe(false);
      await drawerButton.click();
      await poll(() => list.isVisible()).toBe(true);
      expect(await list.innerText()).toContain('Team work on the notes');
      await screenshot(page, 'phone-conversation-drawer');
      await page.keyboard.press('Escape');
      await poll(() => list.isVisible()).toBe(false);
      expect(await page.evaluate('document.activeElement?.textContent?.includes("Conversations")')).toBe(
        true,
      );

      // The status panel is a "Subagents (n)" sheet, not a column squeezing the messages.
      const sheetButton = page.getByRole('button', { name: /^Subagents \(2\)/ });
      const cards = page.locator('article.subagent-card');
      expect(await cards.first().isVisible()).toBe(false);
      const log = page.getByRole('log', { name: 'Messages' });
      const logBox = await log.boundingBox();
      expect(logBox?.width ?? 0).toBeGreaterThan(340);
      expect(logBox?.height ?? 0).toBeGreaterThan(300);
      await sheetButton.click();
      await poll(() => cards.first().isVisible()).toBe(true);
      expect(await cards.count()).toBe(2);
      await screenshot(page, 'phone-subagents-sheet');
      await page.getByRole('button', { name: 'Close', exact: true }).click();
      await poll(() => cards.first().isVisible()).toBe(false);

      // The composer stays on screen, under the messages, and nothing covers Send.
      const composer = page.getByLabel('Message', { exact: true });
      const send = page.getByRole('button', { name: 'Send' });
      const box = await composer.boundingBox();
      const sendBox = await send.boundingBox();
      expect(box && box.y + box.height).toBeLessThanOrEqual(PHONE.height);
      expect(sendBox && sendBox.y + sendBox.height).toBeLessThanOrEqual(PHONE.height);
      expect((box?.y ?? 0) >= (logBox?.y ?? 0) + (logBox?.height ?? 0) - 1).toBe(true);
      const topmost = await page.evaluate(
        `(() => { const r = document.querySelector('.composer button[type=submit]').getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return hit?.closest('button')?.textContent ?? hit?.tagName; })()`,
      );
      expect(topmost).toBe('Send');
      await screenshot(page, 'phone-chat');
    },
    TIMEOUT,
  );

  it(
    'axe-core finds no serious or critical violation on any page, on a desktop and on a phone',
    async () => {
      const found: string[] = [];
      for (const viewport of [{ width: 1360, height: 860 }, PHONE]) {
        await page.setViewportSize(viewport);
        for (const entry of pages()) {
          await visit(page, entry);
          for (const violation of await seriousAxeViolations(page)) {
            found.push(
              `${viewport.width}px ${entry.name}: ${violation.id} (${violation.impact}) ${violation.targets.join(' | ')}`,
            );
          }
        }
        // Opened states are pages too: the phone's sheet, a card's thread.
        if (viewport.width === PHONE.width) {
          await visit(page, pages()[1] as ReturnType<typeof pages>[number]);
          await page.getByRole('button', { name: /^Subagents \(2\)/ }).click();
          for (const violation of await seriousAxeViolations(page))
            found.push(`phone sheet: ${violation.id} ${violation.targets.join(' | ')}`);
        }
      }
      await page.evaluate('localStorage.removeItem("troupe.token")');
      await page.goto(server.url);
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      for (const violation of await seriousAxeViolations(page))
        found.push(`login: ${violation.id} ${violation.targets.join(' | ')}`);
      await openSignedIn(page, server, '/chat');
      expect(found).toEqual([]);
    },
    TIMEOUT * 2,
  );

  it(
    'is operable by keyboard, with a visible focus ring on every control reached',
    async () => {
      await page.setViewportSize({ width: 1360, height: 860 });
      await visit(page, pages()[0] as ReturnType<typeof pages>[number]);
      await page.evaluate('document.activeElement?.blur()');
      // Walk the first stops of the tab order: each is a control and shows an outline of at least 2 px.
      const rings: string[] = [];
      for (let step = 0; step < 9; step++) {
        await page.keyboard.press('Tab');
        const ring = await page.evaluate<string>(`(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return 'body';
          const style = getComputedStyle(el);
          const visible = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
          return (visible ? 'ring ' : 'NO RING ') + el.tagName + ':' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30);
        })()`);
        if (ring === 'body') break;
        rings.push(ring);
      }
      expect(rings.length).toBeGreaterThanOrEqual(8);
      expect(rings.filter((ring) => !ring.startsWith('ring '))).toEqual([]);

      // Open a conversation and move around the status panel without a mouse.
      await page.getByRole('link', { name: /Team work on the notes/ }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/chat\/cnv_/);
      const toggle = page.getByRole('button', { name: /Unfold Analyst details/ });
      await toggle.focus();
      await page.keyboard.press('Enter');
      await poll(() =>
        page.getByRole('button', { name: /Fold Analyst details/ }).getAttribute('aria-expanded'),
      ).toBe('true');
      await page.getByRole('button', { name: 'Open Researcher thread' }).focus();
      await page.keyboard.press('Enter');
      // The thread takes focus ("Back"), and Back returns to the cards.
      await poll(() => page.evaluate('document.activeElement?.textContent')).toBe('← Back');
      await page.keyboard.press('Enter');
      await page.locator('article.subagent-card').first().waitFor();

      // In the trace, rows are buttons: Enter selects one and the detail follows.
      await page.goto(`${server.url}/runs/${fixture.parentRunId}`);
      const researcher = page.getByRole('button', { name: /^Researcher/ });
      await researcher.focus();
      await page.keyboard.press('Enter');
      await poll(() => page.getByRole('region', { name: 'Run Researcher' }).count()).toBe(1);
      expect(await researcher.getAttribute('aria-pressed')).toBe('true');
      await screenshot(page, 'keyboard-trace-selected');
    },
    TIMEOUT,
  );
});
