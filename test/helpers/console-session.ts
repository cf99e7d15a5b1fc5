import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { TroupeConfig } from '../../src/config.js';
import { chromiumPath, ensureConsoleBuilt, launchChromium, screenshot, type TestBrowser } from './browser.js';
import { startTestServer, type TestServer } from './start-test-server.js';

export interface ConsoleSessionOptions {
  /** Names the file in the message printed when it is skipped for want of a chromium. */
  name: string;
  /** The start of the name of the screenshot a failed test leaves behind. */
  failedPrefix: string;
  server?: Partial<TroupeConfig>;
  /** Runs once the page exists (seed data, sign in); its time counts in `timeout`. */
  ready?: (session: ConsoleSession) => Promise<void>;
  /** For the browser start and `ready` (default 120 s). */
  timeout?: number;
  /** Fails the file (after its tests) if the page asked anything of another origin than the server. */
  noForeignRequests?: boolean;
}

/** What a console e2e file drives: `browser` and `page` exist from its `beforeAll` on. */
export interface ConsoleSession {
  /** The chromium binary, undefined when none is installed (the file's tests are then skipped). */
  executable: string | undefined;
  server: TestServer;
  browser: TestBrowser;
  page: Page;
  /** What the page asked of another origin than the server (recorded from the start). */
  foreignRequests: string[];
}

/**
 * The server (started while the file is collected: the console is built first when `web/dist` is missing or
 * stale, since the server decides at start-up whether it has a console to serve), one chromium and one page
 * for the file's tests, a screenshot of the page for each failed test, and all closed after the file.
 */
export async function consoleSession(options: ConsoleSessionOptions): Promise<ConsoleSession> {
  const executable = chromiumPath();
  const session = { executable, foreignRequests: [] as string[] } as ConsoleSession;
  if (!executable) {
    console.warn(`${options.name} skipped: no chromium (set TROUPE_TEST_CHROMIUM)`);
    return session;
  }
  await ensureConsoleBuilt();
  session.server = await startTestServer(options.server);

  beforeAll(async () => {
    session.browser = await launchChromium(executable);
    const origin = new URL(session.server.url).origin;
    session.browser.context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:')) session.foreignRequests.push(url);
    });
    session.page = await session.browser.newPage();
    await options.ready?.(session);
  }, options.timeout ?? 120_000);

  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || !session.page) return;
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(session.page, `${options.failedPrefix}${name}`).catch(() => undefined);
  });

  afterAll(async () => {
    await session.browser?.close();
    await session.server?.close();
    if (options.noForeignRequests) expect(session.foreignRequests).toEqual([]);
  });
  return session;
}
