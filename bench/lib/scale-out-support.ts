import type { Run } from '../../src/core/records/run.js';
import { round } from './stats.js';

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
