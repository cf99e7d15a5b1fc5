/**
 * Benchmark: how fast the console shows a conversation. The server (its own process, `http-server.ts`,
 * serving the freshly built `web/dist`) holds one conversation of several exchanges; chromium (playwright-core)
 * opens `/chat/<id>` signed in, and the page itself records first contentful paint (PerformanceObserver
 * 'paint') and "transcript visible": the animation frame in which the transcript first holds the last answer.
 * Both count from navigation start. Two profiles — loopback at desktop size, and a phone (390×844) with the
 * CPU slowed 4× and 150 ms of added latency per request through CDP — each with a cold cache (a new browser
 * context per load) and a warm one (one context, primed by a load that is not counted). Goal: FCP under 1 s
 * and the transcript under 2 s on the phone profile.
 */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { chromiumPath, CHROMIUM_ARGS } from '../../test/helpers/browser.js';
import { startBenchServer, type BenchServer } from '../lib/bench-server.js';
import { stopChild } from '../lib/child.js';
import { REPO_DIR } from '../lib/root-require.js';
import { roundSummary, summarize } from '../lib/stats.js';
import { progress, runSuite } from '../lib/suite.js';

const EXCHANGES = 8;
/** In the last message only: the transcript is "visible" once the newest answer is rendered. */
const MARKER = 'bench-transcript-end';
const TOKEN_KEY = 'troupe.token';

interface Profile {
  name: 'loopback' | 'phone';
  viewport: { width: number; height: number };
  cpuSlowdown: number;
  latencyMs: number;
}

const PROFILES: Profile[] = [
  { name: 'loopback', viewport: { width: 1360, height: 900 }, cpuSlowdown: 1, latencyMs: 0 },
  { name: 'phone', viewport: { width: 390, height: 844 }, cpuSlowdown: 4, latencyMs: 150 },
];

interface LoadTimes {
  fcp: number;
  transcript: number;
}

/**
 * Runs in the page before any of its scripts (a string: the bench is compiled without the DOM's types): the
 * two clocks the bench reads, in `window.__benchTimes`, and `window.__benchDone`, a promise that resolves with
 * them once both are known. "Visible" is the animation frame that paints the marker, not the DOM change
 * before it.
 */
const RECORD_TIMES = `(() => {
  const times = { fcp: null, transcript: null };
  window.__benchTimes = times;
  let resolveDone;
  window.__benchDone = new Promise((resolve) => { resolveDone = resolve; });
  const settle = () => { if (times.fcp != null && times.transcript != null) resolveDone(times); };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') times.fcp = entry.startTime;
    settle();
  }).observe({ type: 'paint', buffered: true });
  let seen = false;
  const check = () => {
    if (seen || !document.querySelector('.transcript')?.textContent?.includes(${JSON.stringify(MARKER)})) return;
    seen = true;
    requestAnimationFrame((frameStart) => { times.transcript = frameStart; settle(); });
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

async function seedConversation(server: BenchServer): Promise<string> {
  const conversation = server.conversations[0];
  if (conversation === undefined) throw new Error('the bench server created no conversation');
  for (let index = 1; index <= EXCHANGES; index++) {
    const text =
      index === EXCHANGES
        ? `Last question, ${MARKER}.`
        : `Question ${index}: summarise the findings so far in a few sentences, with the open points.`;
    const response = await fetch(`${server.url}/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: text }),
    });
    if (!response.ok)
      throw new Error(`posting message ${index}: ${response.status} ${await response.text()}`);
    // One active run per thread: the next message waits for this answer.
    const ended = server.lines.waitForNext((line) => line.startsWith('{"ended"'));
    server.child.stdin?.write(`wait ${index}\n`);
    await ended;
  }
  return conversation;
}

async function loadOnce(
  context: BrowserContext,
  profile: Profile,
  url: string,
  counted: boolean,
): Promise<LoadTimes | undefined> {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.latencyMs,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await page.goto(url, { waitUntil: 'commit' });
    // Awaited through CDP, not page.waitForFunction: that evaluates playwright's injected script in the page
    // while it loads, a quarter of a second of the throttled main thread in front of the first paint.
    const waited = cdp.send('Runtime.evaluate', {
      expression: 'window.__benchDone',
      awaitPromise: true,
      returnByValue: true,
    });
    const timeout = new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`no transcript within 60 s at ${url}`)), 60_000).unref(),
    );
    const { result } = await Promise.race([waited, timeout]);
    if (!counted) return undefined;
    return result.value as LoadTimes;
  } finally {
    await page.close();
  }
}

async function newContext(browser: Browser, profile: Profile, token: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: profile.viewport, serviceWorkers: 'block' });
  await context.addInitScript(
    `localStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)});`,
  );
  await context.addInitScript(RECORD_TIMES);
  return context;
}

function summarizeLoads(loads: LoadTimes[]) {
  return {
    first_contentful_paint_ms: roundSummary(summarize(loads.map((load) => load.fcp))),
    transcript_visible_ms: roundSummary(summarize(loads.map((load) => load.transcript))),
  };
}

await runSuite('console', async ({ quick }) => {
  const executable = chromiumPath();
  if (executable === undefined) throw new Error('no chromium: install one or set TROUPE_TEST_CHROMIUM');
  const loads = quick ? 2 : 7;
  progress('console', 'building the console (npm run build:web)…');
  execFileSync('npm', ['run', 'build:web'], { cwd: REPO_DIR, stdio: ['ignore', process.stderr, 'inherit'] });
  const server = await startBenchServer('all', 1);
  const browser = await chromium.launch({ executablePath: executable, headless: true, args: CHROMIUM_ARGS });
  try {
    const conversation = await seedConversation(server);
    const url = `${server.url}/chat/${conversation}`;
    const profiles: Record<string, unknown> = {};
    for (const profile of PROFILES) {
      const cold: LoadTimes[] = [];
      for (let index = 0; index < loads; index++) {
        const context = await newContext(browser, profile, server.token);
        const times = await loadOnce(context, profile, url, true);
        await context.close();
        if (times) cold.push(times);
      }
      const warm: LoadTimes[] = [];
      const context = await newContext(browser, profile, server.token);
      await loadOnce(context, profile, url, false);
      for (let index = 0; index < loads; index++) {
        const times = await loadOnce(context, profile, url, true);
        if (times) warm.push(times);
      }
      await context.close();
      const result = { cold: summarizeLoads(cold), warm: summarizeLoads(warm) };
      progress(
        'console',
        `${profile.name}: FCP ${result.cold.first_contentful_paint_ms.median} ms cold / ${result.warm.first_contentful_paint_ms.median} ms warm, transcript ${result.cold.transcript_visible_ms.median} / ${result.warm.transcript_visible_ms.median} ms`,
      );
      profiles[profile.name] = {
        viewport: profile.viewport,
        cpu_slowdown: profile.cpuSlowdown,
        added_latency_ms: profile.latencyMs,
        ...result,
      };
    }
    const phone = profiles.phone as { cold: ReturnType<typeof summarizeLoads> };
    return {
      loads_per_cell: loads,
      exchanges: EXCHANGES,
      chromium: browser.version(),
      profiles,
      goal: {
        fcp_under_ms: 1000,
        transcript_under_ms: 2000,
        met:
          phone.cold.first_contentful_paint_ms.median < 1000 &&
          phone.cold.transcript_visible_ms.median < 2000,
      },
    };
  } finally {
    await browser.close();
    server.child.stdin?.write('exit\n');
    await stopChild(server.child, 10_000);
  }
});
