/**
 * The console on a phone (390 × 844), in a real chromium: no page scrolls sideways, the chat is one column
 * (conversation drawer, "Subagents (n)" sheet, folded menu, pinned composer). Skipped, with a message, when
 * no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { horizontalExtent, openSignedIn, poll } from '../helpers/console-page.js';
import { consoleTourSession, PHONE, visit, type ConsolePage } from '../helpers/console-tour.js';
import type { TestServer } from '../helpers/start-test-server.js';

const TIMEOUT = 120_000;

const { session, pages } = await consoleTourSession('console mobile e2e', TIMEOUT);
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

describe.skipIf(!session.executable)('console on a phone', () => {
  it(
    'no page scrolls sideways at 390 × 844 (screenshots of each)',
    async () => {
      await page.setViewportSize(PHONE);
      const wide: string[] = [];
      for (const entry of pages()) {
        await visit(page, server, entry);
        const extent = await horizontalExtent(page);
        if (extent.scrollWidth > PHONE.width) wide.push(`${entry.name}: ${extent.scrollWidth}px`);
        await screenshot(page, `phone-${entry.name}`);
      }
      // Signed out: the login page.
      await page.evaluate('localStorage.removeItem("troupe.token")');
      await page.goto(server.url);
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      if ((await horizontalExtent(page)).scrollWidth > PHONE.width) wide.push('login');
      await screenshot(page, 'phone-login');
      await openSignedIn(page, server, '/chat');
      expect(wide).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'on a phone the chat is one column: folded menu, conversation drawer, subagents sheet, pinned composer',
    async () => {
      await page.setViewportSize(PHONE);
      await visit(page, server, pages()[1] as ConsolePage);

      // The top menu is folded behind one button.
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      await menu.click();
      await page.getByRole('link', { name: 'Runs' }).waitFor({ state: 'visible' });
      await screenshot(page, 'phone-menu-open');
      await menu.click();
      await poll(() => page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);

      // The conversation list is a drawer; Escape closes it and gives focus back to its button.
      const drawerButton = page.getByRole('button', { name: 'Conversations' });
      const list = page.getByRole('navigation', { name: 'Conversation list' });
      expect(await list.isVisible()).toBe(false);
      await drawerButton.click();
      await poll(() => list.isVisible()).toBe(true);
      expect(await list.innerText()).toContain('Team work on the notes');
      await screenshot(page, 'phone-conversation-drawer');
      await page.keyboard.press('Escape');
      await poll(() => list.isVisible()).toBe(false);
      expect(await page.evaluate('document.activeElement?.textContent?.includes("Conversations")')).toBe(
        true,
      );

      // The status panel is a "Subagents (n)" sheet, not a column squeezing the messages.
      const sheetButton = page.getByRole('button', { name: /^Subagents \(2\)/ });
      const cards = page.locator('article.subagent-card');
      expect(await cards.first().isVisible()).toBe(false);
      const log = page.getByRole('log', { name: 'Messages' });
      const logBox = await log.boundingBox();
      expect(logBox?.width ?? 0).toBeGreaterThan(340);
      expect(logBox?.height ?? 0).toBeGreaterThan(300);
      await sheetButton.click();
      await poll(() => cards.first().isVisible()).toBe(true);
      expect(await cards.count()).toBe(2);
      await screenshot(page, 'phone-subagents-sheet');
      await page.getByRole('button', { name: 'Close', exact: true }).click();
      await poll(() => cards.first().isVisible()).toBe(false);

      // The composer stays on screen, under the messages, and nothing covers Send.
      const composer = page.getByLabel('Message', { exact: true });
      const send = page.getByRole('button', { name: 'Send' });
      const box = await composer.boundingBox();
      const sendBox = await send.boundingBox();
      expect(box && box.y + box.height).toBeLessThanOrEqual(PHONE.height);
      expect(sendBox && sendBox.y + sendBox.height).toBeLessThanOrEqual(PHONE.height);
      expect((box?.y ?? 0) >= (logBox?.y ?? 0) + (logBox?.height ?? 0) - 1).toBe(true);
      const topmost = await page.evaluate(
        `(() => { const r = document.querySelector('.composer button[type=submit]').getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return hit?.closest('button')?.textContent ?? hit?.tagName; })()`,
      );
      expect(topmost).toBe('Send');
      await screenshot(page, 'phone-chat');
    },
    TIMEOUT,
  );
});
