/**
 * The console's questions, artifacts and attachments in a real browser (playwright-core driving Debian's
 * chromium) against the real server composition with the demo data. Skipped, with a message, only when no
 * chromium binary is installed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launchChromium,
  screenshot,
  type TestBrowser,
} from '../helpers/browser.js';
import { startConversation } from '../helpers/console-page.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { DEFAULT_FILE_LIMITS } from '../../src/file-limits.js';

const executable = chromiumPath();
if (!executable) {
  console.warn(
    `console questions/artifacts/attachments e2e skipped: no chromium at ${process.env.TROUPE_TEST_CHROMIUM || '/usr/bin/chromium'}`,
  );
}

const E2E_TIMEOUT = 60_000;
let server: TestServer;
let browser: TestBrowser;
let page: Page;

function poll<T>(read: () => T | Promise<T>, timeout = 15_000) {
  return expect.poll(read, { interval: 50, timeout });
}

beforeAll(async () => {
  if (!executable) return;
  await ensureConsoleBuilt();
  // A small attachment limit, so a file over it is cheap to make.
  server = await startTestServer({ files: { ...DEFAULT_FILE_LIMITS, attachmentMaxBytes: 2048 } });
  browser = await launchChromium(executable);
  page = await browser.newPage();
  await page.goto(server.url);
  await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(server.token)})`);
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}, 120_000);

afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(page, `failed-human-tools-${name}`).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A new chat with the demo assistant, its first message sent. */
function newConversation(text: string): Promise<string> {
  return startConversation(page, text);
}

/** The new chat page, nothing sent: no conversation exists yet. */
async function openNewChat(): Promise<void> {
  await page.getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.getByRole('region', { name: 'New chat' }).waitFor();
}

async function send(text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

const runStatus = () => page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status');
const transcript = () => page.getByRole('log', { name: 'Messages' }).innerText();

describe.skipIf(!executable)('questions, artifacts and attachments in the console', () => {
  it(
    "answers the agent's question from the prompt, and the run goes on with the answer",
    async () => {
      const conversationId = await newConversation('Please ask me before you summarise');
      const prompt = page.getByRole('alertdialog', { name: 'The agent asks you' });
      await prompt.waitFor();
      expect(await prompt.innerText()).toContain('Which format should the summary have?');
      await poll(runStatus).toBe('input_required');
      // It says what it waits for, everywhere, and the keyboard is in the question form.
      expect(await page.getByLabel('Run status').innerText()).toContain('Waiting for your answer');
      const asking = page.getByRole('group', { name: 'Tool call ask_user_question' });
      expect(await asking.innerText()).toContain('waiting for your answer');
      expect(await asking.innerText()).not.toContain('awaiting approval');
      expect(await page.getByLabel('Message', { exact: true }).getAttribute('placeholder')).toBe(
        'The agent is waiting for your answer above.',
      );
      await poll(() =>
        page.evaluate('document.activeElement?.closest("form.question-prompt") !== null'),
      ).toBe(true);
      expect(await page.evaluate('document.activeElement?.textContent')).toBe('bullet points');
      await screenshot(page, 'h1-question-prompt');
      // Nothing to send until every question has an answer; an option fills it in.
      expect(await prompt.getByRole('button', { name: 'Send answer' }).isDisabled()).toBe(true);
      await prompt.getByRole('button', { name: 'one paragraph' }).click();
      expect(await prompt.getByRole('button', { name: 'one paragraph' }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      await prompt.getByRole('button', { name: 'Send answer' }).click();
      await poll(() => prompt.count()).toBe(0);
      // Answered: the keyboard goes back to the composer.
      await poll(() => page.evaluate('document.activeElement?.id')).toBe('composer-input');
      await poll(runStatus).toBe('completed');
      await poll(transcript).toContain('Answer: one paragraph');

      const { runs } = (await (await server.api(`/api/conversations/${conversationId}/runs`)).json()) as {
        runs: { id: string }[];
      };
      const { questions } = (await (await server.api(`/api/agent/runs/${runs[0]?.id}/questions`)).json()) as {
        questions: { status: string; answers: string[] }[];
      };
      expect(questions).toEqual([
        expect.objectContaining({ status: 'answered', answers: ['one paragraph'] }),
      ]);
    },
    E2E_TIMEOUT,
  );

  it(
    'lists a presented artifact beside the transcript and downloads it',
    async () => {
      const conversationId = await newConversation('Write me a report on the launch');
      const panel = page.getByRole('region', { name: 'Artifacts' });
      const item = panel.getByRole('listitem').filter({ hasText: 'Demo report' });
      await item.waitFor({ timeout: 20_000 });
      expect(await item.innerText()).toContain('reports/report.md');
      // The same file as a card where the agent presented it, with a Markdown preview.
      const card = page
        .getByRole('log', { name: 'Messages' })
        .getByRole('article', { name: 'File Demo report' });
      await card.waitFor();
      await card.getByRole('button', { name: 'Preview Demo report' }).click();
      const preview = card.getByLabel('Preview of Demo report');
      await preview.getByRole('heading', { name: 'Report' }).waitFor();
      expect(await preview.innerText()).toContain('Requested as: Write me a report on the launch');
      await screenshot(page, 'h2-artifacts');
      // What the page hands the browser to save: the fetched Blob and the file name of the download link.
      // (Page scripts are strings: this project's TypeScript has no DOM types.)
      await page.evaluate(`(() => {
        const saved = [];
        let lastBlob;
        const createObjectURL = URL.createObjectURL.bind(URL);
        URL.createObjectURL = (blob) => {
          lastBlob = blob;
          return createObjectURL(blob);
        };
        HTMLAnchorElement.prototype.click = function click() {
          saved.push({ name: this.download, blob: lastBlob });
        };
        window.saved = saved;
      })()`);
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.url().includes('/download')),
        item.getByRole('button', { name: 'Download Demo report' }).click(),
      ]);
      expect(response.status()).toBe(200);
      expect(response.url()).toContain(`/api/conversations/${conversationId}/artifacts/`);
      expect(response.headers()['content-disposition']).toContain('report.md');
      const readSaved = () =>
        page.evaluate<{ name: string; text: string } | null>(`(async () => {
          const first = window.saved[0];
          return first ? { name: first.name, text: first.blob ? await first.blob.text() : '' } : null;
        })()`);
      await poll(readSaved).not.toBeNull();
      const saved = await readSaved();
      expect(saved?.name).toBe('report.md');
      expect(saved?.text).toContain('Requested as: Write me a report on the launch');
      // A reload lists it again, from the server.
      await page.reload();
      await page
        .getByRole('region', { name: 'Artifacts' })
        .getByRole('listitem')
        .filter({ hasText: 'Demo report' })
        .waitFor();
    },
    E2E_TIMEOUT,
  );

  it(
    'attaches files with the button and by drag and drop, shows chips, and names them in the message',
    async () => {
      // Files chosen before the first message wait in the browser: the conversation exists only once it is sent.
      await openNewChat();
      const uploads: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url().includes('/attachments'))
          uploads.push(request.url());
      });
      await page.getByLabel('Files to attach').setInputFiles({
        name: 'plan.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('launch date: May 4'),
      });
      const chips = page.getByRole('list', { name: 'Pending attachments' });
      await chips.getByRole('listitem').filter({ hasText: 'plan.txt' }).waitFor();

      // Over the server's limit (read from GET /api/limits): refused before any upload, in words.
      await page.getByLabel('Files to attach').setInputFiles({
        name: 'big.bin',
        mimeType: 'application/octet-stream',
        buffer: Buffer.alloc(3000),
      });
      const refusal = page.getByRole('form', { name: 'Send a message' }).getByRole('alert');
      await poll(() => refusal.innerText()).toContain('big.bin is 3 KB; files up to 2 KB can be attached.');
      expect(await chips.getByRole('listitem').count()).toBe(1);

      const dropped = await page.evaluateHandle(`(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(['dropped notes'], 'notes.md', { type: 'text/markdown' }));
        transfer.items.add(new File(['unwanted'], 'oops.txt', { type: 'text/plain' }));
        return transfer;
      })()`);
      await page.dispatchEvent('form.composer', 'dragover', { dataTransfer: dropped });
      await page.dispatchEvent('form.composer', 'drop', { dataTransfer: dropped });
      await chips.getByRole('listitem').filter({ hasText: 'notes.md' }).waitFor();
      await chips.getByRole('button', { name: 'Remove oops.txt' }).click();
      await poll(() => chips.getByRole('listitem').count()).toBe(2);
      expect(uploads).toEqual([]);
      await screenshot(page, 'h3-attachment-chips');

      await send('Here are the plan and my notes');
      await page.waitForURL(/\/chat\/cnv_/);
      const conversationId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
      expect(uploads).toHaveLength(1);
      await poll(transcript).toContain('Attached files: uploads/plan.txt (18 B), uploads/notes.md (13 B)');
      await poll(runStatus).toBe('completed');

      const conversation = await server.troupe.storage.conversations.get(conversationId);
      const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
      expect(readFileSync(path.join(project?.workdir ?? '', 'uploads/plan.txt'), 'utf8')).toBe(
        'launch date: May 4',
      );
      expect(readFileSync(path.join(project?.workdir ?? '', 'uploads/notes.md'), 'utf8')).toBe(
        'dropped notes',
      );
      const [run] = (await server.troupe.storage.runs.listByConversation(conversationId)) ?? [];
      expect(run?.input.message).toBe(
        'Here are the plan and my notes\n\nAttached files: uploads/plan.txt (18 B), uploads/notes.md (13 B)',
      );
    },
    E2E_TIMEOUT,
  );
});
