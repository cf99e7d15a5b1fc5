import { z } from 'zod';
import type { EventBus } from '../../src/core/ports/event-bus.js';
import { runEventSchema } from '../../src/core/records/run-event.js';

/**
 * The bus with every published event checked against `runEventSchema` (the declarations the OpenAPI document
 * is made from): a harness built on it fails its test at `close` when the runtime emitted an event its type
 * does not describe.
 */
export function checkedEventBus(bus: EventBus): { bus: EventBus; problems(): string[] } {
  const found: string[] = [];
  const publish = bus.publish.bind(bus);
  bus.publish = (event) => {
    const checked = runEventSchema.safeParse(event);
    if (!checked.success) found.push(`${event.type} #${event.seq}: ${z.prettifyError(checked.error)}`);
    return publish(event);
  };
  return { bus, problems: () => [...found] };
}
