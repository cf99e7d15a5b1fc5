/**
 * A run's figures in a real chromium (docs/usage.md): the chat's header and footer show its usage live while
 * it runs, a lost worker is shown as lost with when its takeover is due (clocks stopped), the trace counts
 * the calls its table lists, opens a model call in the span inspector and draws a resumed run's attempts
 * apart. Skipped, with a message, when no chromium is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Run, RunView } from '../../src/core/records/run.js';
import { screenshot } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { createConversation, json, openSignedIn, poll } from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns } from '../helpers/synthetic-runs.js';

const TIMEOUT = 120_000;

const session = await consoleSession({
  name: 'console run figures e2e',
  failedPrefix: 'failed-figures-',
  // A long lease: the reconciler passes every half lease, so only the test takes a lost run over.
  server: { leaseMs: 10 * 60_000 },
  ready: ({ page, server }) => openSignedIn(page, server, '/chat'),
  timeout: TIMEOUT,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

/** One settled model call of `run` that asked for `ls`, its result, as a worker stores and emits them. */
async function settledStep(run: Run, step: number, usage: { input_tokens: number; output_tokens: number }) {
  const synthetic = syntheticRuns(server);
  const id = `c${step}`;
  await server.troupe.storage.messages.appendSteps(run.thread_id, run.id, [
    {
      step,
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: id, toolName: 'ls', input: { step } }],
        },
      ],
      usage,
    },
    {
      step,
      messages: [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: id,
              toolName: 'ls',
              output: { type: 'text', value: `notes-${step}.md` },
            },
          ],
        },
      ],
    },
  ]);
  await synthetic.emit(run, 'tool_call', {
    step,
    tool_call_id: id,
    name: 'ls',
    args: { step },
    model_usage: usage,
  });
  await synthetic.emit(run, 'tool_result', {
    step,
    tool_call_id: id,
    name: 'ls',
    output: `notes-${step}.md`,
    is_error: false,
  });
  await synthetic.emit(run, 'step', { step, tool_calls: 1, usage });
}

/** A running chat run of a new conversation, its first attempt started on the scripted model. */
async function startedRun(title: string, message: string): Promise<{ run: Run; conversationId: string }> {
  const conversationId = await createConversation(server, title);
  const run = await syntheticRuns(server).parent(conversationId, message);
  await syntheticRuns(server).emit(run, 'metadata', { model: 'scripted:demo', usage: null });
  return { run, conversationId };
}

/** The rows of the selected run's model-call table in the trace. */
const modelCallRows = () => page.getByRole('table', { name: 'Model calls of this run' }).locator('tbody tr');

async function getRun(runId: string): Promise<RunView> {
  return (await json<{ run: RunView }>(await server.api(`/api/agent/runs/${runId}`))).run;
}

/** The model-call count the trace's summary shows, and the rows of the selected run's model-call table. */
async function summaryAndRows(): Promise<[string, number]> {
  const summary = await page.locator('.trace-summary [data-calls="subtree"]').innerText();
  const rows = await modelCallRows().count();
  return [summary, rows];
}

describe.skipIf(!session.executable)('run figures in the console', () => {
  it(
    'shows usage live in the chat, a lost worker as lost, the trace counting its table, a model call inspected, a resumed run in two attempts',
    async () => {
      const { run, conversationId } = await startedRun('Live figures', 'list the notes twice');
      await settledStep(run, 1, { input_tokens: 40, output_tokens: 2 });

      await page.goto(`${server.url}/chat/${conversationId}`);
      const header = page.locator('.conversation-header [data-usage="run"]');
      const footer = page.getByRole('group', { name: 'Run of this answer' });
      await poll(() => header.innerText()).toBe('42 tokens · 1 model call so far');
      await poll(() => footer.locator('[data-usage="run"]').innerText()).toBe(
        '42 tokens · 1 model call so far',
      );
      expect(await footer.locator('[data-clock]').getAttribute('data-clock')).toBe('ticking');

      // Its worker's lease runs out in a few seconds; before that it settles a second call: the figure moves
      // without a reload, read from the server after the event that settled it.
      const expiry = new Date(Date.now() + 4_000).toISOString();
      await server.troupe.storage.runs.update(
        run.id,
        { status: ['running'] },
        { worker_id: 'wrk_gone', lease_expires_at: expiry },
      );
      await settledStep(run, 2, { input_tokens: 50, output_tokens: 3 });
      await poll(() => header.innerText()).toBe('95 tokens · 2 model calls so far');
      await poll(() => footer.locator('[data-usage="run"]').innerText()).toBe(
        '95 tokens · 2 model calls so far',
      );
      expect((await getRun(run.id)).usage).toMatchObject({ total_tokens: 95, model_calls: 2 });

      // The lease expires and nobody renews it: the chat says the worker is lost and when the takeover is
      // due, its clocks stopped — not Running with a ticking timer.
      const lost = await eventually('the lease to expire', 15_000, async () => {
        const current = await getRun(run.id);
        return current.worker_lost ? current : undefined;
      });
      expect(lost.worker_lost?.then).toBe('resume');
      const by = await page.evaluate<string>(
        `new Date(${JSON.stringify(lost.worker_lost?.takeover_by)}).toLocaleTimeString('en-GB', { hour12: false })`,
      );
      const badge = footer.locator('.status-badge');
      await poll(() => badge.getAttribute('data-phase'), { timeout: 15_000 }).toBe('worker-lost');
      expect(await badge.innerText()).toContain(`worker lost — resumes by ${by}`);
      expect(await footer.locator('[data-clock]').getAttribute('data-clock')).toBe('stopped');
      expect(await page.locator('.conversation-header .status-badge').getAttribute('data-phase')).toBe(
        'worker-lost',
      );
      const shown = await footer.locator('[data-clock]').innerText();
      await page.waitForTimeout(1_500);
      expect(await footer.locator('[data-clock]').innerText()).toBe(shown);
      await screenshot(page, 'figures-worker-lost');

      // The trace: the same figure, the lost run said so, the summary's count that of the table's rows.
      await page.goto(`${server.url}/runs/${run.id}`);
      const detail = page.getByRole('region', { name: 'Run Assistant' });
      await detail.locator('[data-phase="worker-lost"][role="status"]').waitFor();
      expect(await detail.locator('[data-phase="worker-lost"][role="status"]').innerText()).toContain(
        `Worker lost — resumes by ${by}`,
      );
      // Two answered calls and the third its worker left open: listed, and counted, as stopped.
      await poll(() => summaryAndRows()).toEqual(['3 model calls (1 stopped with its worker)', 3]);
      expect(await modelCallRows().last().innerText()).toContain('stopped: worker lost');

      // A model call's bar opens the span inspector: its prompt, completion, tokens and tool calls.
      const root = page.getByRole('article', { name: 'chat run of Assistant' });
      const firstCall = await modelCallRows().first().getAttribute('data-span-id');
      await root.locator(`.bar-span[data-span-id="${firstCall}"]`).click();
      const inspector = page.getByRole('region', { name: 'Model call · step 1' });
      await inspector.waitFor();
      await poll(() => inspector.locator('[data-inspected="tokens"]').innerText()).toBe('40 in / 2 out');
      expect(await inspector.getByRole('heading', { name: 'Prompt (1 messages)' }).count()).toBe(1);
      const prompt = inspector.locator('.prompt-message[data-role="user"]');
      await prompt.locator('summary').click();
      expect(await prompt.locator('pre').innerText()).toBe('list the notes twice');
      expect(await inspector.locator('[data-inspected="completion"]').innerText()).toContain('→ ls(');
      const toolCalls = inspector.locator('[data-inspected="tool-calls"]');
      await toolCalls.locator('summary').first().click();
      expect(await toolCalls.innerText()).toContain('notes-1.md');
      await screenshot(page, 'figures-span-inspector');
      // The second call, by keyboard from the table: the inspector follows.
      await detail.getByRole('button', { name: 'Inspect model call 2' }).click();
      const second = page.getByRole('region', { name: 'Model call · step 2' });
      await poll(() => second.locator('[data-inspected="tokens"]').innerText()).toBe('50 in / 3 out');

      // The takeover resumes it in a second attempt: usage never goes down, the attempts are drawn apart.
      await server.troupe.reconciler.reconcileOnce();
      await poll(async () => (await getRun(run.id)).status, { timeout: 30_000 }).toBe('completed');
      const done = await getRun(run.id);
      expect(done.usage?.model_calls).toBeGreaterThanOrEqual(3);
      expect(done.usage?.total_tokens).toBeGreaterThan(95);
      await page.reload();
      await root.waitFor();
      await poll(() => root.locator('.bar-run[data-attempt]').count()).toBe(2);
      expect(await root.locator('.bar-gap').count()).toBeGreaterThanOrEqual(1);
      await poll(async () => {
        const [text, count] = await summaryAndRows();
        return { text, count };
      }).toMatchObject({ count: done.usage ? done.usage.model_calls + done.usage.aborted_model_calls : -1 });
      const [after, afterRows] = await summaryAndRows();
      expect(after).toMatch(new RegExp(`^${afterRows} model calls`));
      await screenshot(page, 'figures-two-attempts');
    },
    TIMEOUT,
  );

  it(
    "counts a cancelled run's call that never answered in its trace's summary as its table lists it",
    async () => {
      const synthetic = syntheticRuns(server);
      const { run } = await startedRun('Cancelled figures', 'think for a long time');
      const usage = {
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0,
        model_calls: 0,
        aborted_model_calls: 1,
      };
      await synthetic.setStatus(run.id, 'cancelled', { usage });
      await synthetic.emit(run, 'end', { status: 'cancelled', usage });
      await page.goto(`${server.url}/runs/${run.id}`);
      await page.getByRole('region', { name: 'Run Assistant' }).waitFor();
      await poll(() => summaryAndRows()).toEqual(['1 model call (1 aborted)', 1]);
      expect(await modelCallRows().first().getAttribute('data-span-status')).toBe('cancelled');
      expect(await page.getByRole('region', { name: 'Model calls' }).innerText()).toContain(
        'None: this run called no tool.',
      );
    },
    TIMEOUT,
  );
});
