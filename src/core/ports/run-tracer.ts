import type { Run } from '../records/run.js';
import type { Agent } from '../records/agent.js';
import type { AgentMiddleware } from './agent-middleware.js';

/**
 * Tracing of runs (docs/interoperability.md): one span per execution of a run, with its model and tool calls as child
 * spans contributed by middleware. Only built when tracing is configured, so a server without it pays
 * nothing: no spans, no SDK loaded.
 */
export interface RunTracer {
  /** Runs one execution of a claimed run inside the run's span; the span ends when `execute` settles. */
  traceRun(run: Run, execute: () => Promise<void>): Promise<void>;
  /**
   * Model-call and tool-call spans, as middleware under the run's span. It reads only the run and the agent it
   * plays from the run's setup, so it fits where a middleware factory does.
   */
  middleware: (setup: { run: Run; agent: Agent }) => Promise<AgentMiddleware[]>;
  /** Exports whatever is still buffered; called when the server stops. */
  shutdown(): Promise<void>;
}
