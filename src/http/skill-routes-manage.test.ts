import { describe, expect, it } from 'vitest';
import type { Skill, SkillFileInfo } from '../core/records/skill.js';
import { skillMd } from '../../test/helpers/skills/skill-archives.js';
import type { TestUser } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import {
  archiveOf,
  useSkillRoutesContext,
  type SavedBody,
} from '../../test/helpers/http/use-skill-routes-context.js';

const skills = useSkillRoutesContext();

describe('reading, changing and deleting skills', () => {
  it("lists and reads what the caller may use; another user's private skill is a 404 everywhere", async () => {
    const { ctx, admin, alice, bob, create } = skills();
    const secret = await create(alice, 'secret');
    const open = await create(alice, 'open', '?visibility=public');
    const names = async (user: TestUser) =>
      (
        await json<{ skills: Skill[] }>(await ctx.request('GET', '/api/skills', { token: user.token }), 200)
      ).skills.map((skill) => skill.name);
    expect(await names(alice)).toEqual(['open', 'secret']);
    expect(await names(bob)).toEqual(['open']);
    expect(await names(admin)).toEqual(['open', 'secret']);

    const detail = await json<{ skill: Skill; files: SkillFileInfo[]; skill_md: string }>(
      await ctx.request('GET', '/api/skills/secret', { token: alice.token }),
      200,
    );
    expect(detail).toMatchObject({
      skill: { id: secret.id },
      files: [{ path: 'SKILL.md' }],
      skill_md: skillMd('secret', 'All about secret'),
    });
    for (const url of [`/api/skills/${secret.id}`, '/api/skills/secret', `/api/skills/${secret.id}/grants`]) {
      await expectError(await ctx.request('GET', url, { token: bob.token }), 404, 'skill_not_found');
    }
    await expectError(
      await ctx.request('PATCH', `/api/skills/${secret.id}`, {
        token: bob.token,
        body: { visibility: 'public' },
      }),
      404,
      'skill_not_found',
    );
    await expectError(
      await ctx.request('DELETE', `/api/skills/${secret.id}`, { token: bob.token }),
      404,
      'skill_not_found',
    );
    // A public skill is readable but not changeable by others.
    expect((await ctx.request('GET', `/api/skills/${open.id}`, { token: bob.token })).status).toBe(200);
    await expectError(
      await ctx.request('DELETE', `/api/skills/${open.id}`, { token: bob.token }),
      403,
      'forbidden',
    );
  });

  it('changes visibility, grants on shared skills, and deletes while keeping the name for its owner', async () => {
    const { ctx, admin, alice, bob, upload, create } = skills();
    const skill = await create(alice, 'team-notes');
    const shared = await json<{ skill: Skill }>(
      await ctx.request('PATCH', '/api/skills/team-notes', {
        token: alice.token,
        body: { visibility: 'shared' },
      }),
      200,
    );
    expect(shared.skill.visibility).toBe('shared');
    await json(
      await ctx.request('POST', `/api/skills/${skill.id}/grants`, {
        token: alice.token,
        body: { user_id: bob.user.id },
      }),
      201,
    );
    await json(
      await ctx.request('POST', `/api/skills/${skill.id}/grants`, {
        token: alice.token,
        body: { user_id: bob.user.id },
      }),
      200,
    );
    expect((await ctx.request('GET', `/api/skills/${skill.id}`, { token: bob.token })).status).toBe(200);
    await expectError(
      await ctx.request('POST', `/api/skills/${skill.id}/grants`, {
        token: bob.token,
        body: { user_id: admin.user.id },
      }),
      403,
      'forbidden',
    );
    expect(
      (await ctx.request('DELETE', `/api/skills/${skill.id}/grants/${bob.user.id}`, { token: alice.token }))
        .status,
    ).toBe(204);
    await expectError(
      await ctx.request('DELETE', `/api/skills/${skill.id}/grants/${bob.user.id}`, { token: alice.token }),
      404,
      'grant_not_found',
    );
    await expectError(
      await ctx.request('GET', `/api/skills/${skill.id}`, { token: bob.token }),
      404,
      'skill_not_found',
    );

    expect((await ctx.request('DELETE', `/api/skills/${skill.id}`, { token: alice.token })).status).toBe(204);
    await expectError(
      await ctx.request('GET', `/api/skills/${skill.id}`, { token: alice.token }),
      404,
      'skill_not_found',
    );
    await expectError(await upload(bob, archiveOf('team-notes')), 409, 'skill_name_taken');
    const revived = await json<SavedBody>(await upload(alice, archiveOf('team-notes')), 201);
    expect(revived.skill).toMatchObject({ id: skill.id, deleted_at: null });
  });
});
