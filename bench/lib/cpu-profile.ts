import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface CpuShare {
  category: string;
  ms: number;
  share: number;
}

/** Where sampled CPU time (self time) went, by coarse category; ordered by time. */
export interface CpuBreakdown {
  total_ms: number;
  categories: CpuShare[];
  /** The heaviest functions by self time, as `name (file:line)`. */
  top_functions: CpuShare[];
}

const SQLITE_NATIVES = new Set(['run', 'get', 'all', 'iterate', 'prepare', 'exec', 'pragma']);
const FS_NATIVES = new Set([
  'stat',
  'lstat',
  'open',
  'close',
  'read',
  'readFileUtf8',
  'existsSync',
  'internalModuleStat',
]);
/** The inspector's own message handling (mostly serialising the profile at stop): not the workload's. */
const EXCLUDED = new Set(['dispatch', '(idle)']);

const CATEGORIES: [string, (url: string, name: string) => boolean][] = [
  // Native better-sqlite3 time shows up as self time of its JS caller: Kysely's driver, or the bench's probe.
  [
    'SQLite (better-sqlite3 calls)',
    (url, name) =>
      (url.includes('/kysely/') && url.includes('sqlite-driver') && name === 'executeQuery') ||
      url.includes('sqlite-probe'),
  ],
  // better-sqlite3's Statement methods are native frames of their own (no URL).
  ['SQLite (better-sqlite3 calls)', (url, name) => url === '' && SQLITE_NATIVES.has(name)],
  ['Kysely (query building, driver)', (url) => url.includes('/node_modules/kysely/')],
  ['AI SDK (streamText, providers)', (url) => /\/node_modules\/(ai|@ai-sdk)\//.test(url)],
  ['zod (tool schemas, validation)', (url) => url.includes('/node_modules/zod/')],
  [
    'LangChain / LangGraph / deepagents',
    (url) => /\/node_modules\/(@langchain|langchain|deepagents|langsmith)\//.test(url),
  ],
  ['Hono / HTTP', (url) => /\/node_modules\/(hono|@hono)\//.test(url)],
  ['Troupe src/', (url) => url.includes('/src/')],
  ['other node_modules', (url) => url.includes('/node_modules/')],
  ['file system (scenario files, workdirs)', (url, name) => url === '' && FS_NATIVES.has(name)],
  ['garbage collector', (_url, name) => name === '(garbage collector)'],
  ['Node internals (promises, streams, timers…)', () => true],
];

function categorize(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  for (const [category, matches] of CATEGORIES) if (matches(url, functionName)) return category;
  return 'Node internals (promises, streams, timers…)';
}

/** Samples this process's CPU (V8 sampling profiler through the inspector) while `work` runs. */
export async function profileCpu<T>(work: () => Promise<T>): Promise<{ result: T; breakdown: CpuBreakdown }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    return { result, breakdown: breakdownOf(profile) };
  } finally {
    session.disconnect();
  }
}

function breakdownOf(profile: Profile): CpuBreakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
  );
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    if (node.callFrame.url === '' && EXCLUDED.has(node.callFrame.functionName)) continue;
    const category = categorize(node);
    totalUs += us;
    categories.set(category, (categories.get(category) ?? 0) + us);
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url
      .replace(/^file:\/\//, '')
      .replace(/^.*\/node_modules\//, '')
      .replace(/^.*\/(src|bench)\//, '$1/');
    const key = `${functionName || '(anonymous)'} (${file || 'native'}:${lineNumber + 1})`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const shares = (entries: Map<string, number>, limit: number): CpuShare[] =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([category, us]) => ({ category, ms: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }));
  return {
    total_ms: totalUs / 1000,
    categories: shares(categories, CATEGORIES.length),
    top_functions: shares(functions, 12),
  };
}
