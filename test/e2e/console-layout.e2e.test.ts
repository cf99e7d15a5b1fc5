/**
 * The chat's layout in a real chromium. At 1360 × 900: conversation list | transcript (at least 560 px) |
 * side panel (files, then subagents and delegations), the panel beside the transcript and whole on screen.
 * Narrower, the panel's parts are "Files (n)" and "Subagents (n)" buttons in a toolbar row above the
 * transcript, each opening a sheet that scrolls to its last control. Skipped, with a message, when no
 * chromium is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { horizontalExtent, poll } from '../helpers/console-page.js';
import { consoleTourSession, PHONE, visit, type ConsolePage } from '../helpers/console-tour.js';
import type { TestServer } from '../helpers/start-test-server.js';

const TIMEOUT = 120_000;
const DESKTOP = { width: 1360, height: 900 };

const { session, pages } = await consoleTourSession('console layout e2e', TIMEOUT);
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('element not laid out');
  return found;
}

/** The element is the topmost thing at its own centre: visible, on screen, not covered. */
function isHittable(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element: {
      getBoundingClientRect(): { x: number; y: number; width: number; height: number };
      ownerDocument: { elementFromPoint(x: number, y: number): unknown };
      contains(other: unknown): boolean;
    }) => {
      const rect = element.getBoundingClientRect();
      const hit = element.ownerDocument.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
      return hit !== null && element.contains(hit);
    },
  );
}

const conversationPage = () => pages().find((entry) => entry.name === 'chat-conversation') as ConsolePage;

describe.skipIf(!session.executable)('chat layout', () => {
  it(
    'at 1360 × 900 the side panel sits beside the transcript, whole, and the transcript keeps 560 px',
    async () => {
      await page.setViewportSize(DESKTOP);
      await visit(page, server, conversationPage());
      const list = await box(page.getByRole('complementary', { name: 'Conversations' }));
      const transcript = await box(page.getByRole('region', { name: 'Conversation' }));
      const files = page.getByRole('region', { name: 'Artifacts' });
      const status = page.getByRole('complementary', { name: 'Subagent status' });
      await status.locator('article.subagent-card').first().waitFor();
      const filesBox = await box(files);
      const statusBox = await box(status);

      // Three columns: list, transcript, panel, left to right, side by side.
      expect(list.x + list.width).toBeLessThanOrEqual(transcript.x + 1);
      expect(transcript.width).toBeGreaterThanOrEqual(560);
      for (const part of [filesBox, statusBox]) {
        expect(part.x).toBeGreaterThanOrEqual(transcript.x + transcript.width - 1);
        expect(part.x + part.width).toBeLessThanOrEqual(DESKTOP.width);
        expect(part.y).toBeLessThan(transcript.y + transcript.height);
      }
      // Files first, then the runs under them, from the top of the page.
      expect(filesBox.y).toBeLessThan(120);
      expect(statusBox.y).toBeGreaterThanOrEqual(filesBox.y + filesBox.height - 1);
      // Beside the transcript there are no sheet buttons: both parts are simply there.
      expect(await page.getByRole('button', { name: /^Files \(/ }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: /^Subagents \(/ }).isVisible()).toBe(false);
      const lastDownload = files.getByRole('button', { name: /^Download/ }).last();
      await lastDownload.scrollIntoViewIfNeeded();
      expect(await isHittable(lastDownload)).toBe(true);
      expect((await horizontalExtent(page)).scrollWidth).toBeLessThanOrEqual(DESKTOP.width);
      await screenshot(page, 'layout-desktop-1360');
    },
    TIMEOUT,
  );

  it(
    'on a phone, Files and Subagents are toolbar buttons whose sheets scroll to their last control',
    async () => {
      await page.setViewportSize(PHONE);
      await visit(page, server, conversationPage());
      const log = await box(page.getByRole('log', { name: 'Messages' }));
      const filesButton = page.getByRole('button', { name: 'Files (3)' });
      const runsButton = page.getByRole('button', { name: /^Subagents \(2\)/ });
      // In the toolbar row above the messages, not under the composer.
      for (const button of [filesButton, runsButton]) {
        const place = await box(button);
        expect(place.y + place.height).toBeLessThanOrEqual(log.y + 1);
        expect(place.x + place.width).toBeLessThanOrEqual(PHONE.width);
        expect(await isHittable(button)).toBe(true);
      }

      await filesButton.click();
      const files = page.getByRole('region', { name: 'Artifacts' });
      await poll(() => files.isVisible()).toBe(true);
      // The sheet takes the keyboard; its last Download is reachable and visible once scrolled to.
      await poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Close');
      const lastDownload = files.getByRole('button', { name: /^Download/ }).last();
      await lastDownload.scrollIntoViewIfNeeded();
      const downloadBox = await box(lastDownload);
      expect(downloadBox.y + downloadBox.height).toBeLessThanOrEqual(PHONE.height);
      expect(await isHittable(lastDownload)).toBe(true);
      expect((await box(files)).height).toBeGreaterThan(PHONE.height / 2);
      await screenshot(page, 'layout-phone-files-sheet');
      await page.keyboard.press('Escape');
      await poll(() => files.isVisible()).toBe(false);
      expect(await page.evaluate('document.activeElement?.textContent')).toBe('Files (3)');

      await runsButton.click();
      const status = page.getByRole('complementary', { name: 'Subagent status' });
      await poll(() => status.isVisible()).toBe(true);
      const lastControl = status.getByRole('button').last();
      await lastControl.scrollIntoViewIfNeeded();
      expect(await isHittable(lastControl)).toBe(true);
      await screenshot(page, 'layout-phone-subagents-sheet');
      await status.getByRole('button', { name: 'Close', exact: true }).click();
      await poll(() => status.isVisible()).toBe(false);
      expect((await horizontalExtent(page)).scrollWidth).toBeLessThanOrEqual(PHONE.width);
    },
    TIMEOUT,
  );

  it(
    'between phone and desktop (900 px) the list stays and the side panel is sheets from the toolbar row',
    async () => {
      await page.setViewportSize({ width: 900, height: 800 });
      await visit(page, server, conversationPage());
      const transcript = await box(page.getByRole('region', { name: 'Conversation' }));
      const list = await box(page.getByRole('complementary', { name: 'Conversations' }));
      expect(list.x + list.width).toBeLessThanOrEqual(transcript.x + 1);
      const runsButton = page.getByRole('button', { name: /^Subagents \(2\)/ });
      expect((await box(runsButton)).y).toBeLessThan(transcript.y);
      await runsButton.click();
      const status = page.getByRole('complementary', { name: 'Subagent status' });
      await poll(() => status.isVisible()).toBe(true);
      const sheet = await box(status);
      expect(sheet.x + sheet.width).toBeLessThanOrEqual(900);
      await screenshot(page, 'layout-tablet-900-subagents');
      await page.keyboard.press('Escape');
      expect((await horizontalExtent(page)).scrollWidth).toBeLessThanOrEqual(900);
    },
    TIMEOUT,
  );
});
