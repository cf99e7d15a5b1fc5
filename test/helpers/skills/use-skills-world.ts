import { afterEach } from 'vitest';
import type { User } from '../../../src/core/records/user.js';
import type { MiddlewareFactory } from '../../../src/runtime/middleware/middleware-factory.js';
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
 * The production runtime (skills middleware and install_skill included), alice and bob, and `add` to give a user a
 * one-file skill; `seen` records what each agent was shown. The harness is closed after each test of the file
 * that calls this.
 */
export function useSkillsWorld() {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async function world(
    scenarios: Record<string, string>,
    warn?: (message: string, context?: Record<string, unknown>) => void,
  ) {
    const seen: Seen = new Map();
    // The runtime wires install_skill and the skills middleware itself; the probe sees what they made.
    const h = await createRuntimeHarness({ scenarios, middleware: probe(seen), ...(warn ? { warn } : {}) });
    harness = h;
    const skills = h.runtime.skills;
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
