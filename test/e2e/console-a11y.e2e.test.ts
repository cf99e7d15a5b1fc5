/**
 * The console for keyboard and screen-reader users, in a real chromium: axe-core finds no serious or
 * critical violation on any page, and everything works by keyboard with a visible focus ring. Skipped, with a
 * message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { openSignedIn, poll, seriousAxeViolations } from '../helpers/console-page.js';
import { consoleTourSession, PHONE, visit, type ConsolePage } from '../helpers/console-tour.js';
import type { TestServer } from '../helpers/start-test-server.js';

const TIMEOUT = 120_000;

const { session, pages, tour } = await consoleTourSession('console a11y e2e', TIMEOUT);
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

describe.skipIf(!session.executable)('console for assistive technology', () => {
  it(
    'axe-core finds no serious or critical violation on any page, on a desktop and on a phone',
    async () => {
      const found: string[] = [];
      for (const viewport of [{ width: 1360, height: 860 }, PHONE]) {
        await page.setViewportSize(viewport);
        for (const entry of pages()) {
          await visit(page, server, entry);
          for (const violation of await seriousAxeViolations(page)) {
            found.push(
              `${viewport.width}px ${entry.name}: ${violation.id} (${violation.impact}) ${violation.targets.join(' | ')}`,
            );
          }
        }
        // Opened states are pages too: the phone's sheet, a card's thread.
        if (viewport.width === PHONE.width) {
          await visit(page, server, pages()[1] as ConsolePage);
          await page.getByRole('button', { name: /^Subagents \(2\)/ }).click();
          for (const violation of await seriousAxeViolations(page))
            found.push(`phone sheet: ${violation.id} ${violation.targets.join(' | ')}`);
        }
      }
      await page.evaluate('localStorage.removeItem("troupe.token")');
      await page.goto(server.url);
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      for (const violation of await seriousAxeViolations(page))
        found.push(`login: ${violation.id} ${violation.targets.join(' | ')}`);
      await openSignedIn(page, server, '/chat');
      expect(found).toEqual([]);
    },
    TIMEOUT * 2,
  );

  it(
    'is operable by keyboard, with a visible focus ring on every control reached',
    async () => {
      await page.setViewportSize({ width: 1360, height: 860 });
      await visit(page, server, pages()[0] as ConsolePage);
      // From the top of the page: the new chat's composer has the focus, and Tab would go on from there.
      await page.evaluate('document.activeElement?.blur()');
      await page.mouse.click(2, 2);
      // Walk the first stops of the tab order: each is a control and shows an outline of at least 2 px.
      const rings: string[] = [];
      for (let step = 0; step < 9; step++) {
        await page.keyboard.press('Tab');
        const ring = await page.evaluate<string>(`(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return 'body';
          const style = getComputedStyle(el);
          const visible = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
          return (visible ? 'ring ' : 'NO RING ') + el.tagName + ':' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30);
        })()`);
        if (ring === 'body') break;
        rings.push(ring);
      }
      expect(rings.length).toBeGreaterThanOrEqual(8);
      expect(rings.filter((ring) => !ring.startsWith('ring '))).toEqual([]);

      // Open a conversation and move around the status panel without a mouse.
      await page.getByRole('link', { name: /Team work on the notes/ }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/chat\/cnv_/);
      const toggle = page.getByRole('button', { name: /Unfold Analyst details/ });
      await toggle.focus();
      await page.keyboard.press('Enter');
      await poll(() =>
        page.getByRole('button', { name: /Fold Analyst details/ }).getAttribute('aria-expanded'),
      ).toBe('true');
      await page.getByRole('button', { name: 'Open Researcher thread' }).focus();
      await page.keyboard.press('Enter');
      // The thread takes focus ("Back"), and Back returns to the cards.
      await poll(() => page.evaluate('document.activeElement?.textContent')).toBe('← Back');
      await page.keyboard.press('Enter');
      await page.locator('article.subagent-card').first().waitFor();

      // In the trace, rows are buttons: Enter selects one and the detail follows.
      await page.goto(`${server.url}/runs/${tour().parentRunId}`);
      const researcher = page.getByRole('button', { name: /^Researcher/ });
      await researcher.focus();
      await page.keyboard.press('Enter');
      await poll(() => page.getByRole('region', { name: 'Run Researcher' }).count()).toBe(1);
      expect(await researcher.getAttribute('aria-pressed')).toBe('true');
      await screenshot(page, 'keyboard-trace-selected');
    },
    TIMEOUT,
  );
});
