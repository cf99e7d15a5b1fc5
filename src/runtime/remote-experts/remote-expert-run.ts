import type { Client } from '@a2a-js/sdk/client';
import type { RemoteA2AConnector } from '../../core/ports/remote-a2a-connector.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run, TokenUsage } from '../../core/records/run.js';
import type { RunEmitter } from '../events/run-emitter.js';

export interface RemoteExpertDeps {
  storage: Storage;
  connector: RemoteA2AConnector<Client>;
}

export interface RemoteExpertRun {
  run: Run;
  agent: Agent;
  emitter: RunEmitter;
  signal: AbortSignal;
  /** Longest wait for the remote task; the agent's `config.a2a.timeout_ms` wins when set. */
  timeoutMs: number;
  /** Adds what the remote task used (reported by a remote Troupe) to the run's usage. */
  recordUsage(usage: TokenUsage): void;
}
