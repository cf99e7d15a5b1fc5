/**
 * The trace view in a real chromium, against the real server composition: a waterfall of a run tree built
 * from stored events and kept live over SSE. Skipped, with a message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunTrace } from '../../src/core/trace/run-trace.js';
import { screenshot } from '../helpers/browser.js';
import {
  chatTheDemoTeamAndAnalyst,
  computedStyle,
  json,
  openSignedIn,
  poll,
} from '../helpers/console-page.js';
import { consoleSession } from '../helpers/console-session.js';
import type { TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns } from '../helpers/synthetic-runs.js';

const TIMEOUT = 90_000;

let real: { team: string; analyst: string };
const session = await consoleSession({
  name: 'console runs e2e',
  failedPrefix: 'failed-runs-',
  ready: async ({ browser, page, server }) => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(server.url).origin,
    });
    real = await chatTheDemoTeamAndAnalyst(server);
    await openSignedIn(page, server, '/runs');
  },
  timeout: 180_000,
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

describe.skipIf(!session.executable)('trace view', () => {
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
