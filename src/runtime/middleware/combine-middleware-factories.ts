import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import type { MiddlewareFactory } from './middleware-factory.js';

/** One factory from several, their layers concatenated in the given order (outermost first). */
export function combineMiddlewareFactories(...factories: MiddlewareFactory[]): MiddlewareFactory {
  return async (setup) => {
    const layers: AgentMiddleware[] = [];
    for (const factory of factories) layers.push(...(await factory(setup)));
    return layers;
  };
}
