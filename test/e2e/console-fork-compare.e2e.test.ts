/**
 * Forks and comparisons in a real chromium (docs/effects-and-forks.md): "Fork from here" on a step of a run's
 * trace opens the new conversation, which links to the comparison with its source; the runs explorer compares
 * two selected runs. Skipped, with a message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import {
  attributeOfAll,
  chatToTheEnd,
  json,
  openSignedIn,
  poll,
  seriousAxeViolations,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';

let sourceRunId = '';

const session = await consoleSession({
  name: 'console fork and compare e2e',
  failedPrefix: 'failed-fork-',
  ready: async ({ page, server }) => {
    sourceRunId = await chatToTheEnd(server, 'fork me from the console');
    await openSignedIn(page, server, `/runs/${sourceRunId}`);
  },
  timeout: 180_000,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

interface ApiRun {
  id: string;
  status: string;
  forked_from: { run_id: string; step: number } | null;
}

describe.skipIf(!session.executable)('fork and compare in the console', () => {
  it('forks a run after a step from its trace, opens the fork and compares it with its source', async () => {
    await page.goto(`${server.url}/runs/${sourceRunId}`);
    await page.getByRole('button', { name: 'Fork from step 1' }).click();
    const form = page.getByRole('form', { name: 'Fork after step 1' });
    await form.getByLabel('Model (optional, agent owners)').fill('scripted:summarizer');
    await screenshot(page, 'fork-form');
    await form.getByRole('button', { name: 'Fork and open' }).click();
    await page.waitForURL(/\/chat\/cnv_/);
    const conversationId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    const { runs } = await json<{ runs: ApiRun[] }>(
      await server.api(`/api/conversations/${conversationId}/runs`),
    );
    const fork = runs[0];
    expect(fork?.forked_from).toEqual({ run_id: sourceRunId, step: 1 });
    if (!fork) return;
    await server.api(`/api/agent/runs/${fork.id}/await?timeout_ms=60000`);
    // The copied steps are in the new conversation's transcript, and it says where it came from.
    await poll(() => page.getByRole('note').filter({ hasText: 'A fork of' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Compare with source' }).click();
    await page.waitForURL(/\/runs\/compare\?a=/);
    const url = new URL(page.url());
    expect([url.searchParams.get('a'), url.searchParams.get('b')]).toEqual([sourceRunId, fork.id]);
    const left = page.getByRole('region', { name: 'Run A', exact: true });
    const right = page.getByRole('region', { name: 'Run B', exact: true });
    await poll(() => left.getAttribute('data-run-id')).toBe(sourceRunId);
    expect(await right.getAttribute('data-run-id')).toBe(fork.id);
    expect(await left.innerText()).toContain('write_file');
    expect(await right.innerText()).toContain('fork of step 1');
    const diff = page.getByRole('region', { name: 'Output diff' });
    await poll(() => diff.locator('del').count()).toBeGreaterThan(0);
    expect(await diff.locator('ins').count()).toBeGreaterThan(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'run-compare');
  }, 120_000);

  it('compares two runs picked in the runs explorer, and marks and filters forks', async () => {
    await chatToTheEnd(server, 'a third run to leave unpicked');
    await page.goto(`${server.url}/runs`);
    const table = page.getByRole('table', { name: 'Runs' });
    await poll(() => table.locator('tbody tr').count()).toBe(3);
    const ids = await attributeOfAll(table.locator('tbody tr'), 'data-run-id');
    expect(await table.locator('.fork-badge').count()).toBe(1);
    const checkboxes = table.getByRole('checkbox');
    await checkboxes.nth(0).check();
    await checkboxes.nth(1).check();
    expect(await checkboxes.nth(2).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Compare selected (2/2)' }).click();
    await page.waitForURL(/\/runs\/compare/);
    await poll(() =>
      page.getByRole('region', { name: 'Run A', exact: true }).getAttribute('data-run-id'),
    ).toBe(ids[0] ?? '');
    expect(await page.getByRole('region', { name: 'Run B', exact: true }).getAttribute('data-run-id')).toBe(
      ids[1],
    );

    await page.goto(`${server.url}/runs?forked=true`);
    await poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: 'forks only' }).isChecked()).toBe(true);
  }, 90_000);
});
