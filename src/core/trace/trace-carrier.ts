import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The W3C `traceparent` of the tool call being executed, for the runs that call starts. A child run may
 * execute in another process (scale-out), so its parent span travels in the child's `input`, where any
 * worker's tracer finds it. Only the tracing middleware sets it: without tracing this stays empty.
 */
const currentTraceparent = new AsyncLocalStorage<string>();

export function withTraceparent<T>(traceparent: string, work: () => Promise<T>): Promise<T> {
  return currentTraceparent.run(traceparent, work);
}

/**
 * Fields to spread into a child run's `input`. Read it before opening a transaction: the transaction's
 * callback may run in another async context.
 */
export function traceCarrier(): { traceparent?: string } {
  const traceparent = currentTraceparent.getStore();
  return traceparent === undefined ? {} : { traceparent };
}
