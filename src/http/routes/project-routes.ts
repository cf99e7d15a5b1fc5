import { z } from 'zod';
import type { AppDependencies } from '../app-dependencies.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';
import { projectView } from '../../runtime/projects/project-view.js';

export const createProjectBodySchema = z.object({ name: z.string().trim().min(1).max(200) }).strict();

export function registerProjectRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  registry.add({
    method: 'get',
    path: '/api/projects',

    response: RESPONSES.projects,
    summary: 'My projects (named workdirs)',
    tag: 'projects',
    access: 'user',
    handler: async ({ c, actor }) =>
      c.json({
        projects: (await deps.projects.list(actor)).map((project) =>
          projectView(project, deps.config.dataDir),
        ),
      }),
  });

  registry.add({
    method: 'post',
    path: '/api/projects',

    response: RESPONSES.project,
    summary: 'Create a project and its directory',
    tag: 'projects',
    access: 'user',
    status: 201,
    body: createProjectBodySchema,
    handler: async ({ c, actor, body }) =>
      c.json(
        { project: projectView(await deps.projects.createProject(actor, body.name), deps.config.dataDir) },
        201,
      ),
  });
}
