import { afterEach, beforeEach } from 'vitest';
import type { Skill, SkillFileInfo } from '../../../src/core/records/skill.js';
import { DEFAULT_SKILL_LIMITS } from '../../../src/core/skills/skill-limits.js';
import { skillMd, zipOf } from '../skills/skill-archives.js';
import { createTestContext, type TestContext, type TestUser } from './create-test-context.js';
import { json } from './expect-error.js';

/** What `POST /api/skills` answers. */
export interface SavedBody {
  skill: Skill;
  files: SkillFileInfo[];
}

/** A .zip of one skill folder: its SKILL.md and the `extra` files (path → content). */
export const archiveOf = (name: string, extra: Record<string, string> = {}) =>
  zipOf([
    { path: `${name}/SKILL.md`, content: skillMd(name, `All about ${name}`) },
    ...Object.entries(extra).map(([p, content]) => ({ path: `${name}/${p}`, content })),
  ]);

export interface SkillRoutesContext {
  ctx: TestContext;
  admin: TestUser;
  alice: TestUser;
  bob: TestUser;
  /** Posts `body` to `/api/skills{query}` as `user`. */
  upload: (user: TestUser, body: Uint8Array, query?: string, contentType?: string) => Promise<Response>;
  /** Uploads `archiveOf(name)` as `user` and answers the created skill. */
  create: (user: TestUser, name: string, query?: string) => Promise<Skill>;
}

/** A fresh server with small skill limits and three users before each test; the getter is valid inside tests. */
export function useSkillRoutesContext(): () => SkillRoutesContext {
  let current: SkillRoutesContext | undefined;
  beforeEach(async () => {
    const ctx = await createTestContext({
      config: {
        skillLimits: { ...DEFAULT_SKILL_LIMITS, maxArchiveBytes: 256 * 1024, maxTotalBytes: 1024 * 1024 },
      },
    });
    const admin = await ctx.createUser('root', 'admin');
    const alice = await ctx.createUser('alice');
    const bob = await ctx.createUser('bob');
    const upload = (user: TestUser, body: Uint8Array, query = '', contentType = 'application/zip') =>
      Promise.resolve(
        ctx.app.request(`/api/skills${query}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.token}`, 'content-type': contentType },
          body,
        }),
      );
    const create = async (user: TestUser, name: string, query = '') =>
      (await json<SavedBody>(await upload(user, archiveOf(name), query), 201)).skill;
    current = { ctx, admin, alice, bob, upload, create };
  });
  afterEach(async () => current?.ctx.close());
  return () => {
    if (!current) throw new Error('The skill routes context is built in beforeEach');
    return current;
  };
}
