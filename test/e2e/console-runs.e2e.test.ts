/**
 * The runs explorer and the trace view in a real chromium, against the real server composition: a
 * paginated, filterable list of runs whose rows open a waterfall trace, built from stored events and kept
 * live over SSE. Skipped, with a message, when no chromium binary is installed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newRunId } from '../../src/core/ids.js';
import type { RunListPage } from '../../src/core/records/run-list.js';
import type { RunTrace } from '../../src/core/trace/run-trace.js';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launchChromium,
  screenshot,
  type TestBrowser,
} from '../helpers/browser.js';
import { attributeOfAll, computedStyle, json, openSignedIn, poll } from '../helpers/console-page.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns } from '../helpers/synthetic-runs.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const executable = chromiumPath();
if (!executable) console.warn('console runs e2e skipped: no chromium (set TROUPE_TEST_CHROMIUM)');

const TIMEOUT = 90_000;

let server: TestServer;
let browser: TestBrowser;
let page: Page;
let real: { team: string; analyst: string };

if (executable) {
  await ensureConsoleBuilt();
  server = await startTestServer();
}

/** Runs the demo agent for real and waits for the run to end. */
async function chatToTheEnd(content: string): Promise<string> {
  const { runId } = await server.chat(content);
  await server.api(`/api/agent/runs/${runId}/await?timeout_ms=60000`);
  return runId;
}

/** 28 finished runs in one conversation, two of them saying "needle-xyz", half of them failed. */
async function bulkRuns(): Promise<void> {
  const { storage } = server.troupe;
  const { conversationId } = await server.chat('bulk conversation');
  const conversation = await storage.conversations.get(conversationId);
  if (!conversation) throw new Error('no conversation');
  await server.api(
    `/api/agent/runs/${(await storage.runs.listByConversation(conversationId))[0]?.id}/await?timeout_ms=60000`,
  );
  for (let index = 0; index < 28; index++) {
    const id = newRunId();
    await storage.runs.insert({
      id,
      thread_id: conversation.thread_id,
      conversation_id: conversation.id,
      agent_id: conversation.agent_id,
      user_id: conversation.user_id,
      run_type: 'chat',
      source: 'console-e2e',
      channel: 'api',
      request_id: `req:${id}`,
      created_by_run_id: null,
      root_run_id: id,
      depth: 0,
      subagent_thread_relation_id: null,
      runtime_scope_id: conversation.thread_id,
      tool_approval_mode: 'default',
      model_spec: 'scripted:demo',
      input: { message: index % 14 === 3 ? `bulk run ${index} with needle-xyz inside` : `bulk run ${index}` },
    });
    await walkRunTo(storage, id, index % 2 === 0 ? 'completed' : 'failed', {
      started_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
      ...(index % 2 === 0 ? {} : { error: { type: 'model_call_failed', message: 'synthetic failure' } }),
    });
  }
}

async function apiRuns(query: string): Promise<RunListPage> {
  return json<RunListPage>(await server.api(`/api/agent/runs${query}`));
}

const rowIds = () =>
  attributeOfAll(page.getByRole('table', { name: 'Runs' }).locator('tbody tr'), 'data-run-id');

beforeAll(async () => {
  if (!executable) return;
  browser = await launchChromium(executable);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: new URL(server.url).origin,
  });
  page = await browser.newPage();
  const [team, analyst] = await Promise.all([
    chatToTheEnd('team: research the notes and summarise them'),
    chatToTheEnd('Ask the analyst whether we should archive the notes'),
  ]);
  real = { team, analyst };
  await bulkRuns();
  await openSignedIn(page, server, '/runs');
}, 180_000);

afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(page, `failed-runs-${name}`).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!executable)('runs explorer and trace view', () => {
  it(
    'lists runs newest first, pages with Load more, and filters by text, status, kind and agent (kept in the address)',
    async () => {
      await page.goto(`${server.url}/runs`);
      const table = page.getByRole('table', { name: 'Runs' });
      await poll(() => table.locator('tbody tr').count()).toBe(25);
      const firstPage = await apiRuns('?limit=25');
      expect(await rowIds()).toEqual(firstPage.runs.map((run) => run.id));
      await screenshot(page, 'runs-explorer');

      await page.getByRole('button', { name: 'Load more' }).click();
      const twoPages = await apiRuns('?limit=50');
      await poll(() => table.locator('tbody tr').count()).toBe(twoPages.runs.length);
      expect(await rowIds()).toEqual(twoPages.runs.map((run) => run.id));
      expect(new Set(await rowIds()).size).toBe(twoPages.runs.length);

      // Text search, kept across a reload.
      await page.getByLabel('Search the input').fill('needle-xyz');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/q=needle-xyz/);
      await poll(() => table.locator('tbody tr').count()).toBe(2);
      await page.reload();
      await poll(() => table.locator('tbody tr').count()).toBe(2);
      expect(await page.getByLabel('Search the input').inputValue()).toBe('needle-xyz');
      expect(await table.innerText()).toContain('needle-xyz');

      // Status: only failed runs.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('checkbox', { name: 'Failed' }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/status=failed/);
      const failed = await apiRuns('?status=failed&limit=25');
      await poll(rowIds).toEqual(failed.runs.map((run) => run.id));
      expect(await attributeOfAll(table.locator('tbody tr'), 'data-status')).toEqual(
        failed.runs.map(() => 'failed'),
      );

      // Kind: the delegation to the analyst.
      await page.getByRole('checkbox', { name: 'Failed' }).uncheck();
      await page.getByRole('checkbox', { name: 'delegation' }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/kind=delegation/);
      const delegations = await apiRuns('?kind=delegation&limit=25');
      expect(delegations.runs).toHaveLength(1);
      await poll(rowIds).toEqual(delegations.runs.map((run) => run.id));
      expect(await table.innerText()).toContain('Analyst');

      // Agent: the researcher's runs.
      await page.getByRole('checkbox', { name: 'delegation' }).uncheck();
      await page.getByLabel('Agent', { exact: true }).selectOption('researcher');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/agent=researcher/);
      // The previous filter also showed one row: wait for the researcher's row itself, not a count.
      const researcherRuns = await apiRuns('?agent=researcher&limit=25');
      expect(researcherRuns.runs).toHaveLength(1);
      await poll(rowIds).toEqual(researcherRuns.runs.map((run) => run.id));
      expect(await table.innerText()).toContain('Researcher');
      await screenshot(page, 'runs-explorer-filtered');

      await page.getByRole('button', { name: 'Clear' }).click();
      await poll(() => table.locator('tbody tr').count()).toBe(25);
    },
    TIMEOUT,
  );

  it(
    'opens a trace from a row: a waterfall of every run with its model and tool calls, subagent and delegation edges, subtree totals',
    async () => {
      await page.goto(`${server.url}/runs?kind=chat&q=team`);
      await page
        .getByRole('table', { name: 'Runs' })
        .getByRole('link', { name: /team: research the notes/ })
        .click();
      await page.waitForURL(new RegExp(`/runs/${real.team}$`));
      const tree = page.getByRole('list', { name: 'Run tree' });
      const root = tree.getByRole('article', { name: 'chat run of Assistant' });
      await root.waitFor();
      expect(await root.locator('.bar-span[data-span-kind="model"]').count()).toBeGreaterThanOrEqual(3);
      expect(await root.locator('.bar-span[data-span-kind="tool"]').count()).toBe(3);
      for (const name of ['Researcher', 'Summarizer']) {
        const row = tree.getByRole('article', { name: `subagent run of ${name}` });
        expect(await row.getAttribute('data-edge')).toBe('subagent');
        expect(await row.getAttribute('data-status')).toBe('completed');
        expect(await row.locator('.bar-span[data-span-kind="model"]').count()).toBeGreaterThanOrEqual(1);
      }
      // Totals per subtree: own and children's tokens, as the API sums them.
      const { trace } = await json<{ trace: RunTrace }>(
        await server.api(`/api/agent/runs/${real.team}/trace`),
      );
      const totals = trace.nodes[0]?.totals;
      expect(totals?.children.total_tokens).toBeGreaterThan(0);
      expect(await root.innerText()).toContain(
        `${totals?.subtree.total_tokens} tokens (own ${totals?.own.total_tokens} + children ${totals?.children.total_tokens})`,
      );
      await screenshot(page, 'trace-team');

      // The detail of a child: lineage with copy buttons, per-call usage, output and its transcript.
      await tree.getByRole('button', { name: /^Researcher/ }).click();
      const detail = page.getByRole('region', { name: 'Run Researcher' });
      await detail.waitFor();
      const researcher = trace.nodes.find((node) => node.display_name === 'Researcher');
      await detail.getByRole('button', { name: 'Copy run id' }).click();
      await poll(() => detail.getByRole('button', { name: 'Copy run id' }).innerText()).toBe('Copied');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(researcher?.run.id);
      // One row per model call the stored events show (the demo researcher reads its skill first, then answers).
      expect(researcher?.totals.own.model_calls).toBeGreaterThanOrEqual(2);
      expect(
        await detail.getByRole('table', { name: 'Model calls of this run' }).locator('tbody tr').count(),
      ).toBe(researcher?.totals.own.model_calls);
      expect(await detail.getByRole('table', { name: 'Tool calls of this run' }).innerText()).toContain('ls');
      await poll(() => detail.getByRole('log', { name: 'Researcher transcript' }).innerText()).toContain(
        'Research this for the team',
      );
      expect(await detail.getByRole('region', { name: 'Final output' }).innerText()).toContain(
        'Research notes on',
      );
      expect(new URL(page.url()).pathname).toBe(`/runs/${researcher?.run.id}`);
      await screenshot(page, 'trace-detail');

      // A delegation hangs off a dashed edge, a subagent off a solid one.
      await page.goto(`${server.url}/runs/${real.analyst}`);
      const delegation = page.getByRole('article', { name: 'delegation run of Analyst' });
      await delegation.waitFor();
      expect(await delegation.getAttribute('data-edge')).toBe('delegation');
      expect(await computedStyle(delegation.locator('.trace-label'), 'borderLeftStyle')).toBe('dashed');
      await page.goto(`${server.url}/runs/${real.team}`);
      const subagent = page.getByRole('article', { name: 'subagent run of Researcher' });
      await subagent.waitFor();
      expect(await computedStyle(subagent.locator('.trace-label'), 'borderLeftStyle')).toBe('solid');
    },
    TIMEOUT,
  );

  it(
    'follows a running tree live over SSE, resumes after a reload, and cancels an active run',
    async () => {
      const synthetic = syntheticRuns(server);
      const { conversation } = await json<{ conversation: { id: string } }>(
        await server.api('/api/conversations', {
          method: 'POST',
          body: JSON.stringify({ agent_id: 'assistant', title: 'live trace' }),
        }),
      );
      const parent = await synthetic.parent(conversation.id, 'look into the notes, live');
      await synthetic.emit(parent, 'metadata', { model: 'scripted:demo' });
      await page.goto(`${server.url}/runs/${parent.id}`);
      const root = page.getByRole('article', { name: 'chat run of Assistant' });
      await root.waitFor();
      await page.getByRole('status').filter({ hasText: 'Live · following 1 run' }).waitFor();
      const tools = root.locator('.bar-span[data-span-kind="tool"]');
      expect(await tools.count()).toBe(0);

      // A tool call starts: its bar appears without a reload, still running.
      await synthetic.emit(parent, 'tool_call', {
        step: 1,
        tool_call_id: 'c_grep',
        name: 'grep',
        args: { pattern: 'x' },
      });
      await poll(() => tools.count()).toBe(1);
      expect(await tools.first().getAttribute('data-span-status')).toBe('running');

      // A child starts: a new row, live too; its tokens roll up into the root's totals.
      const child = await synthetic.child(parent, {
        slug: 'researcher',
        kind: 'subagent',
        task: 'Grep the notes',
      });
      await synthetic.setStatus(child.run.id, 'running');
      await synthetic.update(parent, child, 'running');
      const childRow = page.getByRole('article', { name: 'subagent run of Researcher' });
      await childRow.waitFor();
      await synthetic.emit(child.run, 'metadata', { model: 'scripted:researcher' });
      await synthetic.emit(child.run, 'step', {
        step: 1,
        tool_calls: 0,
        usage: { input_tokens: 30, output_tokens: 7 },
      });
      await poll(() => childRow.innerText()).toContain('37 tokens');
      await poll(() => root.innerText()).toContain('37 tokens (own 0 + children 37)');
      await screenshot(page, 'trace-live');

      // A reload resumes from the stored events: nothing lost, nothing doubled, and still live.
      await page.reload();
      await root.waitFor();
      await poll(() => tools.count()).toBe(1);
      await poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /Live · following/ })
          .count(),
      ).toBe(1);
      await synthetic.emit(parent, 'tool_result', {
        step: 1,
        tool_call_id: 'c_grep',
        name: 'grep',
        output: 'none',
        is_error: false,
      });
      await poll(() => tools.first().getAttribute('data-span-status')).toBe('done');
      expect(await tools.count()).toBe(1);

      // Cancel from the detail of an active run.
      await childRow.getByRole('button', { name: /^Researcher/ }).click();
      const detail = page.getByRole('region', { name: 'Run Researcher' });
      await detail.getByRole('button', { name: 'Cancel run' }).click();
      await poll(async () => (await server.troupe.storage.runs.get(child.run.id))?.status).toMatch(/cancel/);
      await poll(() => childRow.getAttribute('data-status')).toMatch(/cancel/);
    },
    TIMEOUT,
  );
});
