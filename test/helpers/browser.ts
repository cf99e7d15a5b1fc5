import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const CONSOLE_DIST = path.join(REPO_ROOT, 'web/dist');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-artifacts/console');

/**
 * Debian's chromium unless `TROUPE_TEST_CHROMIUM` names another binary; undefined when the default is
 * missing. A binary named explicitly must exist: asking for browser tests and silently skipping them
 * would make them a test that cannot fail.
 */
export function chromiumPath(): string | undefined {
  const named = process.env.TROUPE_TEST_CHROMIUM;
  if (named) {
    if (!existsSync(named)) throw new Error(`TROUPE_TEST_CHROMIUM=${named} does not exist`);
    return named;
  }
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

/** Flags for CI containers: no sandbox, no GPU, and nothing that phones home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A fresh chromium profile (its own `--user-data-dir`), removed on close. */
export async function launchChromium(executablePath: string): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1360, height: 860 },
    // No downloads, no service workers: the console must work from the server alone.
    acceptDownloads: false,
    serviceWorkers: 'block',
  });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Builds the console with Vite when `web/dist` is missing (or `TROUPE_TEST_REBUILD_CONSOLE=1`), before the
 * server starts: the server decides at start-up whether it has a console to serve.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync(path.join(CONSOLE_DIST, 'index.html')) && process.env.TROUPE_TEST_REBUILD_CONSOLE !== '1')
    return;
  const { build } = await import('vite');
  await build({ configFile: path.join(REPO_ROOT, 'web/vite.config.ts'), logLevel: 'warn' });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
