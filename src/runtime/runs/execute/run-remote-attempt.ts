import { TroupeError } from '../../../core/errors.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { AgentLoopOutcome } from '../../agent-loop/agent-loop.js';
import { effectiveLimits } from '../../agents/agent-limits.js';
import type { RunEmitter } from '../../events/run-emitter.js';
import { driveRemoteExpert } from '../../remote-experts/drive-remote-expert.js';
import type { RemoteExpertDeps } from '../../remote-experts/remote-expert-run.js';
import { remoteModelLabel } from '../../remote-experts/remote-model-label.js';
import type { RunUsageMeter } from '../../usage/run-usage-meter.js';
import { announceAttempt } from './announce-attempt.js';
import { attemptAnnounced } from './attempt-announced.js';
import { attemptMetadata } from './attempt-metadata.js';
import type { RunExecutorDeps } from './run-executor-deps.js';

export interface RemoteAttempt {
  run: Run;
  agent: Agent;
  emitter: RunEmitter;
  signal: AbortSignal;
  meter: RunUsageMeter;
  adopted: boolean;
  resumed: boolean;
}

/** An attempt of a remote expert's run (backend `a2a`): a remote task, with no model, tools or middleware here. */
export async function runRemoteAttempt(
  deps: Pick<RunExecutorDeps, 'storage' | 'limits' | 'remoteExperts'>,
  { run, agent: usable, emitter, signal, meter, adopted, resumed }: RemoteAttempt,
): Promise<AgentLoopOutcome> {
  const { storage } = deps;
  if (!resumed || !(await attemptAnnounced(storage, run)))
    await announceAttempt(
      storage,
      emitter,
      run,
      attemptMetadata(run, usable, remoteModelLabel(usable)),
      adopted,
    );
  return driveRemoteExpert(remoteExperts(), {
    run,
    agent: usable,
    emitter,
    signal,
    timeoutMs: effectiveLimits(deps.limits, usable.config).waitTimeoutMs,
    recordUsage: (usage) => {
      meter.usage.input_tokens += usage.input_tokens;
      meter.usage.output_tokens += usage.output_tokens;
      meter.usage.total_tokens += usage.total_tokens;
      meter.usage.model_calls += usage.model_calls;
    },
  });

  function remoteExperts(): RemoteExpertDeps {
    if (!deps.remoteExperts) {
      throw new TroupeError(
        'remote_expert_unavailable',
        'This server is not set up to reach remote A2A experts',
      );
    }
    return { storage, connector: deps.remoteExperts };
  }
}
