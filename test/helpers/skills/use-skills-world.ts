import { afterEach } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { User } from '../../../src/core/records/user.js';
import type { MiddlewareFactory } from '../../../src/runtime/middleware/middleware-factory.js';
import { createSkillsMiddleware } from '../../../src/runtime/skills/create-skills-middleware.js';
import { createInstallSkillTool } from '../../../src/runtime/skills/install-skill-tool.js';
import { createSkillService, type SkillService } from '../../../src/runtime/skills/skill-service.js';
import { createRuntimeHarness, type RuntimeHarness } from '../create-runtime-harness.js';
import { skillMd, zipOf } from './skill-archives.js';

/** What each agent (by slug) was shown on its last model call. */
export type Seen = Map<string, { system: string; tools: string[] }>;

function probe(seen: Seen): MiddlewareFactory {
  return () =>
    Promise.resolve([
      {
        name: 'probe',
        wrapModelCall(request, next) {
          seen.set(request.agent.slug, {
            system: request.system,
            tools: request.tools.map((tool) => tool.name).sort(),
          });
          return next(request);
        },
      },
    ]);
}

/**
 * A runtime with the skills middleware and the install_skill tool, alice and bob, and `add` to give a user a
 * one-file skill; `seen` records what each agent was shown. The harness is closed after each test of the file
 * that calls this.
 */
export function useSkillsWorld() {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async function world(scenarios: Record<string, string>) {
    const seen: Seen = new Map();
    // The tool and the middleware need the harness's storage, which exists only once the harness does.
    const late: { storage?: Storage; skills?: SkillService } = {};
    const must = <T>(value: T | undefined): T => {
      if (value === undefined) throw new Error('harness not ready');
      return value;
    };
    const h = await createRuntimeHarness({
      scenarios,
      extraTools: [
        createInstallSkillTool({
          get storage() {
            return must(late.storage);
          },
          get skills() {
            return must(late.skills);
          },
        }),
      ],
      middleware: async (setup) => [
        ...(await createSkillsMiddleware({ storage: must(late.storage) })(setup)),
        ...(await probe(seen)(setup)),
      ],
    });
    harness = h;
    const skills = createSkillService({ storage: h.storage });
    Object.assign(late, { storage: h.storage, skills });
    const alice = await h.createUser('alice');
    const bob = await h.createUser('bob');
    const add = (owner: User, name: string, visibility: 'private' | 'public' = 'private') =>
      skills.createFromArchive(
        owner,
        zipOf([{ path: `${name}/SKILL.md`, content: skillMd(name, `Use ${name} well`) }]),
        { visibility },
      );
    return { h, seen, alice, bob, add, skills };
  };
}
