/**
 * The runs explorer in a real chromium, against the real server composition: a paginated, filterable list
 * of runs. Skipped, with a message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newRunId } from '../../src/core/ids.js';
import type { RunListPage } from '../../src/core/records/run-list.js';
import { screenshot } from '../helpers/browser.js';
import {
  attributeOfAll,
  chatTheDemoTeamAndAnalyst,
  json,
  openSignedIn,
  poll,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const TIMEOUT = 90_000;

const session = await consoleSession({
  name: 'console runs e2e',
  failedPrefix: 'failed-runs-',
  ready: async ({ browser, page, server }) => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(server.url).origin,
    });
    await chatTheDemoTeamAndAnalyst(server);
    await bulkRuns(server);
    await openSignedIn(page, server, '/runs');
  },
  timeout: 180_000,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

/** 28 finished runs in one conversation, two of them saying "needle-xyz", half of them failed. */
async function bulkRuns(server: TestServer): Promise<void> {
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

describe.skipIf(!session.executable)('runs explorer', () => {
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
      await page.getByRole('checkbox', { name: 'Failed', exact: true }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/status=failed/);
      const failed = await apiRuns('?status=failed&limit=25');
      await poll(rowIds).toEqual(failed.runs.map((run) => run.id));
      expect(await attributeOfAll(table.locator('tbody tr'), 'data-status')).toEqual(
        failed.runs.map(() => 'failed'),
      );

      // Kind: the delegation to the analyst.
      await page.getByRole('checkbox', { name: 'Failed', exact: true }).uncheck();
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
});
