import path from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
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
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
    }));
  })()`)) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** How far the page scrolls sideways: its scroll width and the viewport width. */
export async function horizontalExtent(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return (await page.evaluate(
    '({ scrollWidth: document.scrollingElement.scrollWidth, clientWidth: document.scrollingElement.clientWidth })',
  )) as { scrollWidth: number; clientWidth: number };
}

export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
