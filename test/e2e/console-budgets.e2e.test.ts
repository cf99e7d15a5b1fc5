/**
 * Budgets in the console (docs/budgets.md, issue 16 item 5) in a real browser: the agent editor's budget fields, a
 * child's used / limit bars and its `budget_exhausted` outcome in the status panel, and the budget of a run in
 * the trace. The model is the real OpenAI adapter against a fake OpenAI server on loopback.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  FakeModelResponse,
  FakeModelServer,
  RecordedRequest,
} from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../helpers/models/fake-openai-server.js';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launchChromium,
  screenshot,
  type TestBrowser,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { openSignedIn, poll } from '../helpers/console-page.js';
import { busyTurn, roleOf, turnOf } from '../helpers/role-model.js';

const executable = chromiumPath();
if (!executable) console.warn('console budgets e2e skipped: no chromium');

const WAIT = { timeout: 15_000 };

let server: TestServer;
let model: FakeModelServer;
let browser: TestBrowser;
let page: Page;

/** The planner hands one child a two-call budget; the child never stops calling tools. */
function answer(request: RecordedRequest): FakeModelResponse {
  if (roleOf(request) === 'child') return busyTurn(0);
  if (turnOf(request) === 0) {
    return {
      toolCalls: [
        {
          name: 'task',
          args: {
            subagent_slug: 'general-purpose',
            description: 'CHILD research',
            budget: { model_calls: 2 },
          },
        },
      ],
    };
  }
  return { text: 'The planner goes on without it.' };
}

beforeAll(async () => {
  if (!executable) return;
  await ensureConsoleBuilt();
  model = await startFakeOpenAiServer({ responses: answer });
  server = await startTestServer({ openaiBaseUrl: model.baseURL, openaiApiKey: 'sk-test' });
  browser = await launchChromium(executable);
  page = await browser.newPage();
  await openSignedIn(page, server);
}, 120_000);

afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    await screenshot(
      page,
      `failed-budgets-${context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 50)}`,
    ).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await model?.close();
});

describe.skipIf(!executable)('budgets in the console', () => {
  it('sets a budget in the agent editor, shows a child exhausting its share and the budget in the trace', async () => {
    await page.goto(`${server.url}/agents/new?kind=agent`);
    await page.getByLabel('Name').fill('Planner');
    await page.getByLabel('Slug').fill('planner');
    await page.getByLabel('System prompt').fill('You plan.');
    await page.getByLabel('Model', { exact: true }).fill('openai:gpt-test');
    await page.getByLabel('Max LLM calls').fill('10');
    await page.getByLabel('Max tokens').fill('200000');
    await page.getByRole('button', { name: 'Create' }).click();
    await poll(async () => {
      const response = await server.api('/api/agent/planner');
      if (!response.ok) return undefined;
      return ((await response.json()) as { agent: { config: { budget?: unknown } } }).agent.config.budget;
    }, WAIT).toEqual({ model_calls: 10, tokens: 200_000 });

    const { conversationId, runId } = await server.chat('Plan the launch', 'planner');
    await server.api(`/api/agent/runs/${runId}/await?timeout_ms=20000`);
    await page.goto(`${server.url}/chat/${conversationId}`);
    const card = page.locator('article.subagent-card');
    await poll(() => card.getAttribute('data-status'), WAIT).toBe('failed');
    // A finished turn and its finished cards start folded.
    await page.locator('button.turn-group-toggle').first().click();
    await card.getByRole('button', { name: /Unfold/ }).click();
    expect(await card.innerText()).toContain('Budget exhausted');
    const bars = card.getByRole('list', { name: /budget/ });
    expect(await bars.innerText()).toContain('2 / 2');
    expect(await bars.locator('li[data-dimension="model_calls"]').getAttribute('data-exhausted')).toBe(
      'true',
    );
    await screenshot(page, '30-budget-exhausted-child');

    await page.goto(`${server.url}/runs/${runId}`);
    await page.getByRole('heading', { name: 'Budget' }).first().waitFor();
    const rootBars = page.getByRole('list', { name: /budget/ }).first();
    // The root spent its own two calls and the child's two: 4 of 10.
    await poll(() => rootBars.innerText(), WAIT).toContain('4 / 10');
  }, 60_000);
});
