import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

/** Newest modification time under `dir` (files only), 0 when it does not exist. */
function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** The built console is older than its sources (the console also imports pure modules of `src/core`). */
function consoleIsStale(index: string): boolean {
  const built = statSync(index).mtimeMs;
  return [path.join(REPO_ROOT, 'web/src'), path.join(REPO_ROOT, 'src/core')].some(
    (dir) => newestMtime(dir) > built,
  );
}

// Outside the repository (nothing to ignore), one per checkout.
const BUILD_LOCK = path.join(os.tmpdir(), `troupe-console-build-${REPO_ROOT.replace(/[^a-zA-Z0-9]+/g, '_')}`);

/** One build at a time across test workers: a second worker waits for the first one's build. */
async function withBuildLock(work: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // A lock left by a crashed run is taken over after a few minutes.
      const held = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 300_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`console build lock ${BUILD_LOCK} held too long`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await work();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds the console with Vite when `web/dist` is missing or older than its sources (or
 * `TROUPE_TEST_REBUILD_CONSOLE=1`), before the server starts: the server decides at start-up whether it has
 * a console to serve, and a stale build would test yesterday's console.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  const index = path.join(CONSOLE_DIST, 'index.html');
  const needed = () => !existsSync(index) || consoleIsStale(index);
  if (process.env.TROUPE_TEST_REBUILD_CONSOLE !== '1' && !needed()) return;
  await withBuildLock(async () => {
    // Another worker may have built it while this one waited.
    if (process.env.TROUPE_TEST_REBUILD_CONSOLE !== '1' && !needed()) return;
    const { build } = await import('vite');
    await build({ configFile: path.join(REPO_ROOT, 'web/vite.config.ts'), logLevel: 'warn' });
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
