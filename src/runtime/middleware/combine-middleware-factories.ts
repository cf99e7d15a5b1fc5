import type { MiddlewareFactory } from './middleware-factory.js';

/**
 * One factory from several, their layers concatenated in the given order (outermost first). The factories'
 * setups are independent (each reads what it mounts: a roster, skills, knowledge sources) and run at once, so
 * an attempt on PostgreSQL waits one round trip for them rather than one per factory (docs/scale-out.md).
 */
export function combineMiddlewareFactories(...factories: MiddlewareFactory[]): MiddlewareFactory {
  return async (setup) => (await Promise.all(factories.map((factory) => factory(setup)))).flat();
}
