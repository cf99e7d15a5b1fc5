import type { Run } from '../../core/records/run.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';

/**
 * Tracing of runs (SPEC §11): one span per execution of a run, with its model and tool calls as child
 * spans contributed by middleware. Only built when tracing is configured, so a server without it pays
 * nothing: no spans, no SDK loaded.
 */
export interface RunTracer {
  /** Runs one execution of a claimed run inside the run's span; the span ends when `execute` settles. */
  traceRun(run: Run, execute: () => Promise<void>): Promise<void>;
  /** Model-call and tool-call spans, as middleware under the run's span. */
  middleware: MiddlewareFactory;
  /** Exports whatever is still buffered; called when the server stops. */
  shutdown(): Promise<void>;
}
