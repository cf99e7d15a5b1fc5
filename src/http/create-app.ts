import { Hono } from 'hono';
import { TroupeError } from '../core/errors.js';
import type { AppDependencies } from './app-dependencies.js';
import type { AppEnv } from './app-env.js';
import { createAuthMiddleware } from './auth-middleware.js';
import { createErrorHandler, errorResponse } from './error-handler.js';
import { stderrLogger } from './logger.js';
import { createRouteRegistry } from './route-registry.js';
import { registerAgentRoutes } from './routes/agent-routes.js';
import { registerConversationRoutes } from './routes/conversation-routes.js';
import { registerDelegationRoutes } from './routes/delegation-routes.js';
import { registerExpertRoutes } from './routes/expert-routes.js';
import { registerKnowledgeRoutes } from './routes/knowledge-routes.js';
import { registerMeRoutes } from './routes/me-routes.js';
import { registerProjectRoutes } from './routes/project-routes.js';
import { registerRunRoutes } from './routes/run-routes.js';
import { registerRunExplorerRoutes } from './routes/run-explorer-routes.js';
import { registerRunTreeRoutes } from './routes/run-tree-routes.js';
import { registerRunForkRoutes } from './routes/run-fork-routes.js';
import { registerSkillRoutes } from './routes/skill-routes.js';
import { registerSystemRoutes } from './routes/system-routes.js';
import { registerUserRoutes } from './routes/user-routes.js';
import { serveConsole } from './serve-console.js';
import { createAuthThrottle } from '../runtime/auth/auth-throttle.js';
import { registerQuestionRoutes } from './routes/question-routes.js';
import { registerConversationFileRoutes } from './routes/conversation-file-routes.js';
import { registerA2ARoutes } from './routes/a2a-routes.js';
import { registerOpenAiRoutes } from './routes/openai-routes.js';
import { registerAgUiRoutes } from './routes/ag-ui-routes.js';

export type { AppDependencies } from './app-dependencies.js';

/** The whole HTTP surface: JSON API under `/api`, the console at `/`. No socket; `main.ts` serves it. */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  const logger = deps.logger ?? stderrLogger;
  const app = new Hono<AppEnv>();
  app.onError(createErrorHandler(logger));
  app.notFound((c) =>
    errorResponse(c, new TroupeError('route_not_found', `No route for ${c.req.method} ${c.req.path}`)),
  );

  const registry = createRouteRegistry({
    app,
    authenticate: createAuthMiddleware(deps.auth, {
      throttle: createAuthThrottle({
        maxFailures: deps.config.authFailureLimit,
        windowMs: deps.config.authFailureWindowMs,
      }),
      trustProxy: deps.config.trustProxy,
    }),
    maxBodyBytes: deps.config.maxBodyBytes,
    checkResponses: deps.config.checkResponses,
  });
  registerSystemRoutes(registry, deps);
  registerMeRoutes(registry, deps);
  registerUserRoutes(registry, deps);
  // Run routes live under /api/agent/runs/… and must win over /api/agent/{id}/… patterns.
  registerRunRoutes(registry, deps, logger);
  registerRunTreeRoutes(registry, deps);
  registerRunForkRoutes(registry, deps);
  registerRunExplorerRoutes(registry, deps);
  registerQuestionRoutes(registry, deps);
  registerAgentRoutes(registry, deps);
  registerExpertRoutes(registry, deps);
  registerDelegationRoutes(registry, deps);
  registerProjectRoutes(registry, deps);
  registerConversationRoutes(registry, deps);
  registerSkillRoutes(registry, deps);
  registerKnowledgeRoutes(registry, deps);
  registerConversationFileRoutes(registry, deps);
  // Outside /api (A2A clients look for /.well-known/agent-card.json), so before the console's catch-all.
  registerA2ARoutes(registry, deps, logger);
  registerOpenAiRoutes(app, registry, deps, logger);
  registerAgUiRoutes(registry, deps, logger);
  serveConsole(app, deps.consoleDir);
  return app;
}
