/**
 * The chat as it starts and is used, in a real chromium against the real server: a new chat is a composer
 * with an agent picker and nothing exists until the first message (the server names the conversation after
 * it); the list searches titles, groups them by date, archives with undo; messages can be copied, retried,
 * edited and resent, code copied; `execute` shows as a shell block, approved for the whole run or rejected
 * with a reason the agent reads. Skipped, with a message, when no chromium is installed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { rmSync } from 'node:fs';
import { screenshot } from '../helpers/browser.js';
import {
  computedStyle,
  createConversation,
  json,
  openSignedIn,
  poll,
  startConversation,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import { copyScenarios, withRuleFirst } from '../helpers/scenario-dir.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns, USAGE_52 } from '../helpers/synthetic-runs.js';

const TIMEOUT = 90_000;
const DANGER = 'rgb(180, 35, 24)';

// The builder runs two commands when told to build "twice", each waiting for an approval.
const scenarioDir = copyScenarios((file, scenario) =>
  file !== 'builder.yaml'
    ? scenario
    : withRuleFirst(scenario, {
        name: 'twice',
        when: { contains: 'twice' },
        steps: [
          { text: 'First command.', tool_calls: [{ name: 'execute', args: { command: 'echo one' } }] },
          {
            text: 'Second command.',
            tool_calls: [{ name: 'execute', args: { command: 'echo two && echo careful >&2' } }],
          },
          { text: 'Both ran.' },
        ],
      }),
);
afterAll(() => rmSync(scenarioDir, { recursive: true, force: true }));

const session = await consoleSession({
  name: 'console chat start e2e',
  failedPrefix: 'failed-chat-start-',
  server: { scenarioDir },
  ready: async ({ page, server, browser }) => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await openSignedIn(page, server, '/chat');
  },
  timeout: TIMEOUT,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

interface Listed {
  id: string;
  title: string;
  status: string;
}

async function conversations(status: 'active' | 'archived' = 'active'): Promise<Listed[]> {
  return (await json<{ conversations: Listed[] }>(await server.api(`/api/conversations?status=${status}`)))
    .conversations;
}

const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
const focusedId = () => page.evaluate<string | undefined>('document.activeElement?.id');

describe.skipIf(!session.executable)('a chat that starts like Claude.ai', () => {
  it(
    'opens on a composer with an agent picker and creates the conversation, named by the server, on the first send',
    async () => {
      await page.setViewportSize({ width: 1360, height: 900 });
      await page.goto(`${server.url}/chat`);
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      await poll(focusedId).toBe('composer-input');
      const before = (await conversations()).length;

      // "New chat" and an agent's "Chat" create nothing on the server.
      await page.getByRole('button', { name: 'New chat' }).click();
      await poll(focusedId).toBe('composer-input');
      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('button', { name: 'Chat with Analyst' }).click();
      await page.waitForURL(/\/chat\?agent=/);
      const picker = page.getByRole('combobox', { name: 'Agent' });
      const analyst = await picker.locator('option', { hasText: 'Analyst' }).getAttribute('value');
      await poll(() => picker.inputValue()).toBe(analyst);
      expect((await conversations()).length).toBe(before);
      await screenshot(page, 'chat-start-new-chat');

      const id = await startConversation(
        page,
        'Plan the quarterly review with the whole team, including the budget and the hiring plan for next year',
      );
      const listed = await conversations();
      expect(listed.length).toBe(before + 1);
      const created = listed.find((item) => item.id === id);
      // Cut at a word by the server, not by the console.
      expect(created?.title).toBe('Plan the quarterly review with the whole team, including…');
      const list = page.getByRole('navigation', { name: 'Conversation list' });
      await poll(() => list.getByRole('region', { name: 'Today' }).innerText()).toContain(
        created?.title ?? '?',
      );
      await poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(created?.title);
      await poll(focusedId).toBe('composer-input');
    },
    TIMEOUT,
  );

  it(
    'searches titles, groups the list by date, archives with undo and finds archived conversations',
    async () => {
      const budget = await createConversation(server, 'Budget review');
      const groceries = await createConversation(server, 'Groceries list');
      const old = await createConversation(server, 'Old budget notes');
      // Last changed yesterday and ten days ago (there is no API to date a conversation back).
      const db = new Database(path.join(server.dataDir, 'troupe.db'));
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const yesterday = new Date();
      yesterday.setDate(yesterday.getDate() - 1);
      yesterday.setHours(12, 0, 0, 0);
      db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(
        yesterday.toISOString(),
        groceries,
      );
      db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?').run(daysAgo(10), old);
      db.close();

      await page.goto(`${server.url}/chat`);
      const list = page.getByRole('navigation', { name: 'Conversation list' });
      await list.getByRole('region', { name: 'Older' }).waitFor();
      expect(await list.getByRole('region', { name: 'Yesterday' }).innerText()).toContain('Groceries list');
      expect(await list.getByRole('region', { name: 'Older' }).innerText()).toContain('Old budget notes');
      expect(await list.getByRole('region', { name: 'Today' }).innerText()).toContain('Budget review');
      expect(await list.locator('h2').allInnerTexts()).toEqual(['TODAY', 'YESTERDAY', 'OLDER']);

      // The server searches the titles.
      const searched = page.waitForResponse((response) => response.url().includes('q=budget'));
      await page.getByRole('searchbox', { name: 'Search conversations' }).fill('budget');
      await searched;
      await poll(() => list.getByRole('link').allInnerTexts()).toEqual(['Budget review', 'Old budget notes']);
      await screenshot(page, 'chat-list-search');

      // Archive, with an undo.
      await list.getByRole('link', { name: 'Budget review' }).click();
      await page.getByRole('heading', { name: 'Budget review', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Archive', exact: true }).click();
      const notice = page.getByRole('status').filter({ hasText: 'Archived “Budget review”.' });
      await notice.waitFor();
      await page.waitForURL(/\/chat$/);
      await poll(() => list.getByRole('link').allInnerTexts()).toEqual(['Old budget notes']);
      expect((await conversations('archived')).map((item) => item.id)).toContain(budget);
      await page.getByRole('button', { name: 'Archived', exact: true }).click();
      await poll(() => list.getByRole('link').allInnerTexts()).toEqual(['Budget review']);
      await screenshot(page, 'chat-archived-undo');
      await notice.getByRole('button', { name: 'Undo' }).click();
      await page.waitForURL(new RegExp(`/chat/${budget}$`));
      await poll(async () => (await conversations()).some((item) => item.id === budget)).toBe(true);
      expect(
        await page.getByRole('button', { name: 'Active', exact: true }).getAttribute('aria-pressed'),
      ).toBe('true');
      await poll(() => list.getByRole('link').allInnerTexts()).toEqual(['Budget review', 'Old budget notes']);

      // An archived conversation says so and is restored from its own page too.
      await server.api(`/api/conversations/${old}`, {
        method: 'PATCH',
        body: JSON.stringify({ status: 'archived' }),
      });
      await page.getByRole('button', { name: 'Archived', exact: true }).click();
      await list.getByRole('link', { name: 'Old budget notes' }).click();
      const composer = page.getByLabel('Message', { exact: true });
      await poll(() => composer.getAttribute('placeholder')).toBe(
        'This conversation is archived: restore it to continue.',
      );
      expect(await composer.isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Restore' }).click();
      await poll(() => composer.isDisabled()).toBe(false);
      expect((await conversations()).some((item) => item.id === old)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'copies, retries and edits messages, and copies code',
    async () => {
      const id = await startConversation(page, 'hello there');
      const log = page.getByRole('log', { name: 'Messages' });
      const footer = log.getByRole('group', { name: 'Run of this answer' });
      await poll(() => footer.innerText(), { timeout: 30_000 }).toContain('Completed');
      const answer = log.getByRole('group', { name: 'Actions on the answer' });
      await answer.getByRole('button', { name: 'Copy answer' }).click();
      await poll(clipboard).toContain('You said: "hello there"');

      await answer.getByRole('button', { name: 'Retry' }).click();
      const runs = async () =>
        (
          await json<{ runs: { input: { message: string }; status: string }[] }>(
            await server.api(`/api/conversations/${id}/runs`),
          )
        ).runs;
      await poll(async () => (await runs()).length, { timeout: 20_000 }).toBe(2);
      await poll(async () => (await runs())[0]?.status, { timeout: 30_000 }).toBe('completed');
      expect((await runs()).map((run) => run.input.message)).toEqual(['hello there', 'hello there']);

      // Only the latest message of mine offers Edit; the edited text goes as a new message.
      const mine = log.getByRole('group', { name: 'Actions on your message' });
      await poll(() => mine.getByRole('button', { name: 'Edit' }).count()).toBe(1);
      await mine.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('form', { name: 'Edit your message' });
      expect(await edit.getByLabel('Edited message').inputValue()).toBe('hello there');
      await edit.getByLabel('Edited message').fill('hello again, edited');
      await edit.getByRole('button', { name: 'Send edited message' }).click();
      await poll(async () => (await runs())[0]?.input.message, { timeout: 20_000 }).toBe(
        'hello again, edited',
      );
      await screenshot(page, 'chat-message-actions');

      // Code blocks copy their code, without the highlighting.
      const synthetic = syntheticRuns(server);
      const codeConversation = await createConversation(server, 'Code');
      const run = await synthetic.parent(codeConversation, 'show me code', 'completed');
      await synthetic.setStatus(run.id, 'completed', { usage: USAGE_52, started_at: run.created_at });
      await server.troupe.storage.messages.append(run.thread_id, run.id, 1, [
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'Here:\n\n```ts\nconst answer: number = 42;\n```' }],
        },
      ]);
      await page.goto(`${server.url}/chat/${codeConversation}`);
      const block = page.locator('.code-block').first();
      await block.getByRole('button', { name: 'Copy code' }).click();
      await poll(clipboard).toBe('const answer: number = 42;');
    },
    TIMEOUT,
  );

  it(
    'shows execute as a shell block, approves a command for the rest of the run, and rejects one with a reason',
    async () => {
      await startConversation(page, 'build it twice', 'Builder');
      const prompt = page.getByRole('alertdialog', { name: 'Approve execute?' });
      await prompt.waitFor({ timeout: 20_000 });
      expect(await prompt.locator('.shell-block').innerText()).toBe('$ echo one');
      await screenshot(page, 'chat-approve-shell');
      await prompt.getByRole('button', { name: 'Approve for this run' }).click();
      const log = page.getByRole('log', { name: 'Messages' });
      const footer = log.getByRole('group', { name: 'Run of this answer' });
      // The second command ran without asking: the run completed.
      await poll(() => footer.innerText(), { timeout: 30_000 }).toContain('Completed');
      const shells = log.getByRole('group', { name: 'Tool call execute' });
      expect(await shells.count()).toBe(2);
      const first = await shells.nth(0).innerText();
      expect(first).toContain('$ echo one');
      expect(first).toContain('exit code: 0');
      expect(await shells.nth(1).locator('.shell-stderr').innerText()).toContain('careful');
      await screenshot(page, 'chat-shell-blocks');

      await startConversation(page, 'build', 'Builder');
      await prompt.waitFor({ timeout: 20_000 });
      await prompt.getByRole('button', { name: 'Reject…' }).click();
      await prompt.getByLabel('Why not? (optional; the agent reads it)').fill('not on a Friday');
      await prompt.getByRole('button', { name: 'Reject', exact: true }).click();
      const rejected = log.getByRole('group', { name: 'Tool call execute' });
      await poll(() => rejected.getAttribute('data-state'), { timeout: 30_000 }).toBe('rejected');
      expect(await rejected.innerText()).toContain('rejected by you');
      expect(await rejected.getByRole('note').innerText()).toContain('“not on a Friday”');
      // A decision, not a failure: nothing in the error red.
      expect(await computedStyle(rejected.locator('.tool-state'), 'color')).not.toBe(DANGER);
      expect(await rejected.locator('.error-message, [role=alert]').count()).toBe(0);
      await screenshot(page, 'chat-rejected-neutral');
    },
    TIMEOUT,
  );
});
