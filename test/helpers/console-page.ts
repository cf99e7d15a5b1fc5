import path from 'node:path';
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { TestServer } from './start-test-server.js';

const AXE_SCRIPT = path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

/** `expect.poll` with a timeout that suits a browser on a busy CI machine. */
export function poll<T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) {
  return expect.poll(read, { interval: 50, ...options, timeout: options.timeout ?? 10_000 });
}

/** Signs in through localStorage (the login form has its own test) and opens `path`. */
export async function openSignedIn(page: Page, server: TestServer, pathname = '/'): Promise<void> {
  if (!page.url().startsWith(server.url)) await page.goto(server.url);
  await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(server.token)})`);
  await page.goto(`${server.url}${pathname}`);
  await page.locator('.app-header').waitFor();
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (the real one, injected from node_modules) on the page as it is now, and returns the
 * serious and critical violations, each with the elements it found.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"')))
    await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
    }));
  })()`);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** How far the page scrolls sideways: its scroll width and the viewport width. */
export async function horizontalExtent(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return page.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.scrollingElement.scrollWidth, clientWidth: document.scrollingElement.clientWidth })',
  );
}

export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/*
 * The page's DOM as these helpers touch it: the tests compile without the DOM library, so the callbacks
 * that run in the browser describe the little they use.
 */
interface PageElement {
  getAttribute(name: string): string | null;
  ownerDocument: { defaultView: { getComputedStyle(element: unknown): Record<string, string> } | null };
}

/** A computed CSS property of the (single) element. */
export function computedStyle(locator: Locator, property: string): Promise<string> {
  return locator.evaluate(
    (element: PageElement, name: string) =>
      element.ownerDocument.defaultView?.getComputedStyle(element)[name] ?? '',
    property,
  );
}

/** One attribute of every element the locator matches, in document order. */
export function attributeOfAll(locator: Locator, name: string): Promise<(string | null)[]> {
  return locator.evaluateAll(
    (elements: PageElement[], attribute: string) =>
      elements.map((element) => element.getAttribute(attribute)),
    name,
  );
}

/** The selected text of a textarea or input. */
export function selectedText(locator: Locator): Promise<string> {
  return locator.evaluate(
    (element: { value: string; selectionStart: number | null; selectionEnd: number | null }) =>
      element.value.slice(element.selectionStart ?? 0, element.selectionEnd ?? 0),
  );
}

/** Tests can run alone (`-t`): signs in through localStorage unless the page is already signed in. */
export async function ensureSignedIn(page: Page, server: TestServer): Promise<void> {
  if (page.url().startsWith(server.url) && (await page.getByRole('navigation', { name: 'Main' }).count()) > 0)
    return;
  await page.goto(server.url);
  await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(server.token)})`);
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * Starts a conversation as a user would: "New chat", the agent picked, the first message sent (the server
 * creates the conversation only then); returns its id once the page is that conversation.
 */
export async function startConversation(page: Page, text: string, agentName = 'Assistant'): Promise<string> {
  await page.getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('button', { name: 'New chat' }).click();
  const picker = page.getByRole('combobox', { name: 'Agent' });
  const option = picker.locator('option', { hasText: agentName });
  await picker.selectOption((await option.getAttribute('value')) ?? '');
  await sendMessage(page, text);
  await page.waitForURL(/\/chat\/cnv_/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The text of the live (streamed) assistant turn, or '' before it exists. */
export function liveTurnText(page: Page): Promise<string> {
  return page
    .locator('li.turn[data-live="true"]')
    .last()
    .innerText()
    .catch(() => '');
}

/** A new conversation with `agentId`, made through the API; returns its id. */
export async function createConversation(
  server: TestServer,
  title: string,
  agentId = 'assistant',
): Promise<string> {
  const { conversation } = await json<{ conversation: { id: string } }>(
    await server.api('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent_id: agentId, title }),
    }),
  );
  return conversation.id;
}

/** Runs the demo agent for real through the API and waits for the run to end; returns its id. */
export async function chatToTheEnd(server: TestServer, content: string): Promise<string> {
  const { runId } = await server.chat(content);
  await server.api(`/api/agent/runs/${runId}/await?timeout_ms=60000`);
  return runId;
}

/** The demo's team run (subagents) and analyst run (a delegation), run to their end; their run ids. */
export async function chatTheDemoTeamAndAnalyst(
  server: TestServer,
): Promise<{ team: string; analyst: string }> {
  const [team, analyst] = await Promise.all([
    chatToTheEnd(server, 'team: research the notes and summarise them'),
    chatToTheEnd(server, 'Ask the analyst whether we should archive the notes'),
  ]);
  return { team, analyst };
}
