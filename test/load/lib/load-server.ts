import { rmSync } from 'node:fs';
import { DEFAULT_LIMITS } from '../../../src/run-limits.js';
import type { TroupeConfig } from '../../../src/config.js';
import { copyScenarios } from '../../helpers/scenario-dir.js';
import { startTestServer, type TestServer } from '../../helpers/start-test-server.js';

function withoutDelays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDelays);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'delay_ms')
        .map(([key, item]) => [key, withoutDelays(item)]),
    );
  }
  return value;
}

/** Copies the shipped scenarios (demo "team", researcher, summarizer…) with every `delay_ms` removed. */
export function zeroDelayScenarioDir(): string {
  return copyScenarios((_file, scenario) => withoutDelays(scenario));
}

export interface LoadServer extends TestServer {
  scenarioDir: string;
}

/**
 * The real server (`createTroupe` + `listen`, demo data seeded) on loopback with the shipped scenarios at
 * zero delay. `concurrentParents` sizes the worker: a parent blocked in `subagent_await`/`task` keeps its
 * queue slot, so the worker needs more slots than parents waiting at once, or their children never run.
 */
export async function startLoadServer(
  concurrentParents: number,
  overrides: Partial<TroupeConfig> = {},
): Promise<LoadServer> {
  const scenarioDir = zeroDelayScenarioDir();
  const server = await startTestServer({
    scenarioDir,
    workerConcurrency: concurrentParents * 2 + 16,
    limits: {
      ...DEFAULT_LIMITS,
      maxActiveChildrenPerUser: Math.max(DEFAULT_LIMITS.maxActiveChildrenPerUser, concurrentParents * 4),
    },
    // The malformed-input sweep sends hundreds of bad tokens from loopback; throttled, every later probe
    // would be a 429 and reach no validation at all. The throttle has its own tests.
    authFailureLimit: 0,
    ...overrides,
  });
  return {
    ...server,
    scenarioDir,
    async close() {
      await server.close();
      rmSync(scenarioDir, { recursive: true, force: true });
    },
  };
}
