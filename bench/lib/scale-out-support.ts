import type { Run } from '../../src/core/records/run.js';
import { HELPER_CONFIG, MAIN_CONFIG } from './dispatch-scenario.js';
import { round } from './stats.js';
import type { TroupeApi } from './troupe-api.js';

/** Names and limits shared by the phases of the scale-out suite (bench/suites/scale-out.ts). */
export const SCALE_OUT_SUITE = 'scale-out';
/** Requests the client keeps in flight while it posts a batch (as the HTTP suite's autocannon connections). */
export const CLIENT_CONCURRENCY = 20;
export const RUN_TIMEOUT_MS = 120_000;

export const ms = (from: number, to: number): number => round(to - from);

export function checkAnswer(run: Run, expected: string): void {
  if (run.status !== 'completed' || !run.output?.includes(expected))
    throw new Error(`run ${run.id} ended ${run.status}: ${JSON.stringify(run.error ?? run.output)}`);
}

export interface ScaleOutAgents {
  main: string;
  slow: string;
}

/** The dispatch scenario's agents (and the slow one of the recovery phase) on a fresh server. */
export async function createAgents(api: TroupeApi): Promise<ScaleOutAgents> {
  await api.call(
    'POST',
    '/api/agent',
    { slug: 'helper', name: 'helper', is_subagent: true, config: HELPER_CONFIG },
    201,
  );
  const agent = async (slug: string, config: object) =>
    (await api.call<{ agent: { id: string } }>('POST', '/api/agent', { slug, name: slug, config }, 201)).agent
      .id;
  return {
    main: await agent('main', MAIN_CONFIG),
    slow: await agent('slow', { model: 'scripted:slow', tools: [] }),
  };
}
