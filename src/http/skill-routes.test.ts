import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Skill, SkillFileInfo } from '../core/records/skill.js';
import { DEFAULT_SKILL_LIMITS } from '../core/skills/skill-limits.js';
import { skillMd, tarGzOf, zipOf } from '../../test/helpers/skills/skill-archives.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await createTestContext({
    config: {
      skillLimits: { ...DEFAULT_SKILL_LIMITS, maxArchiveBytes: 256 * 1024, maxTotalBytes: 1024 * 1024 },
    },
  });
  admin = await ctx.createUser('root', 'admin');
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
});
afterEach(async () => ctx.close());

interface SavedBody {
  skill: Skill;
  files: SkillFileInfo[];
}

const archiveOf = (name: string, extra: Record<string, string> = {}) =>
  zipOf([
    { path: `${name}/SKILL.md`, content: skillMd(name, `All about ${name}`) },
    ...Object.entries(extra).map(([p, content]) => ({ path: `${name}/${p}`, content })),
  ]);

function upload(
  user: TestUser,
  body: Uint8Array,
  query = '',
  contentType = 'application/zip',
): Promise<Response> {
  return Promise.resolve(
    ctx.app.request(`/api/skills${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': contentType },
      body,
    }),
  );
}

async function create(user: TestUser, name: string, query = ''): Promise<Skill> {
  return (await json<SavedBody>(await upload(user, archiveOf(name), query), 201)).skill;
}

describe('creating skills', () => {
  it('takes a raw .zip body and answers the skill and its files', async () => {
    const saved = await json<SavedBody>(
      await upload(alice, archiveOf('citations', { 'ref/example.md': 'ex' })),
      201,
    );
    expect(saved.skill).toMatchObject({
      name: 'citations',
      description: 'All about citations',
      owner_id: alice.user.id,
      visibility: 'private',
      file_count: 2,
    });
    expect(saved.files.map((file) => file.path)).toEqual(['SKILL.md', 'ref/example.md']);
  });

  it('takes a multipart form with a .tar.gz in its "file" part', async () => {
    const form = new FormData();
    form.set(
      'file',
      new Blob([tarGzOf([{ path: 'SKILL.md', content: skillMd('tarred') }])]),
      'tarred.tar.gz',
    );
    const response = await ctx.app.request('/api/skills?visibility=public', {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect((await json<SavedBody>(response, 201)).skill).toMatchObject({
      name: 'tarred',
      visibility: 'public',
    });
  });

  it('publishes a new version only with replace=true, and never over another user', async () => {
    const first = await create(alice, 'versioned');
    await expectError(await upload(alice, archiveOf('versioned')), 409, 'skill_name_taken');
    const replaced = await json<SavedBody>(
      await upload(alice, archiveOf('versioned', { 'new.md': 'v2' }), '?replace=true'),
      200,
    );
    expect(replaced.skill).toMatchObject({ id: first.id, file_count: 2 });
    await expectError(await upload(bob, archiveOf('versioned'), '?replace=true'), 409, 'skill_name_taken');
  });

  it('refuses hostile and broken archives with a 4xx and stores nothing', async () => {
    const before = ctx.countRows();
    const traversal = zipOf([
      { path: 'SKILL.md', content: skillMd('evil') },
      { path: '../../etc/cron.d/x', content: 'x' },
    ]);
    await expectError(await upload(alice, traversal), 400, 'skill_invalid');
    const link = zipOf([
      { path: 'SKILL.md', content: skillMd('evil') },
      { path: 'l', content: '/etc/passwd', mode: 0o120777 },
    ]);
    await expectError(await upload(alice, link), 400, 'skill_invalid');
    const bomb = zipOf([
      { path: 'zeros', content: new Uint8Array(4 * 1024 * 1024), level: 9 },
      { path: 'SKILL.md', content: skillMd('evil') },
    ]);
    await expectError(await upload(alice, bomb), 413, 'skill_too_large');
    await expectError(await upload(alice, new Uint8Array(300 * 1024)), 413, 'payload_too_large');
    await expectError(
      await upload(alice, new TextEncoder().encode('not an archive'), '', 'application/octet-stream'),
      400,
      'skill_invalid',
    );
    await expectError(
      await upload(alice, zipOf([{ path: 'README.md', content: 'no skill' }])),
      400,
      'skill_invalid',
    );
    await expectError(await upload(alice, archiveOf('x1'), '', 'text/plain'), 415, 'unsupported_media_type');
    const noFile = new FormData();
    noFile.set('other', 'x');
    const response = await ctx.app.request('/api/skills', {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: noFile,
    });
    await expectError(response, 400, 'validation_failed');
    expect(ctx.countRows()).toEqual(before);
  });

  it('installs a folder of a workdir the caller owns, and refuses anyone else', async () => {
    const agent = await ctx.agents.create(alice.user, { name: 'Main', slug: 'main' });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: agent.id });
    const project = await ctx.projects.get(alice.user, conversation.project_id);
    mkdirSync(path.join(project.workdir, 'drafts/from-workdir'), { recursive: true });
    writeFileSync(path.join(project.workdir, 'drafts/from-workdir/SKILL.md'), skillMd('from-workdir'));
    const folder = { conversation_id: conversation.id, path: 'drafts/from-workdir' };
    await expectError(
      await ctx.request('POST', '/api/skills', { token: bob.token, body: { from_workdir: folder } }),
      404,
      'conversation_not_found',
    );
    await expectError(
      await ctx.request('POST', '/api/skills', {
        token: bob.token,
        body: { from_workdir: { project_id: project.id, path: 'drafts/from-workdir' } },
      }),
      404,
      'project_not_found',
    );
    await expectError(
      await ctx.request('POST', '/api/skills', {
        token: alice.token,
        body: { from_workdir: { ...folder, project_id: project.id } },
      }),
      400,
      'validation_failed',
    );
    await expectError(
      await ctx.request('POST', '/api/skills', {
        token: alice.token,
        body: { from_workdir: { ...folder, path: '../..' } },
      }),
      400,
      'path_outside_workdir',
    );
    const saved = await json<SavedBody>(
      await ctx.request('POST', '/api/skills', {
        token: alice.token,
        body: { from_workdir: folder, visibility: 'shared' },
      }),
      201,
    );
    expect(saved.skill).toMatchObject({
      name: 'from-workdir',
      owner_id: alice.user.id,
      visibility: 'shared',
    });
  });
});

describe('reading, changing and deleting skills', () => {
  it("lists and reads what the caller may use; another user's private skill is a 404 everywhere", async () => {
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

describe('config.skills in agent warnings and the build report', () => {
  it('reports unknown, invisible and malformed skill names of the agent and of its inline specs', async () => {
    await create(bob, 'bobs-private');
    await create(alice, 'mine');
    const response = await ctx.request('POST', '/api/agent', {
      token: alice.token,
      body: {
        name: 'Main',
        slug: 'main',
        config: {
          tools: ['read_file'],
          skills: ['mine', 'bobs-private', 'Bad Name'],
          subagent_specs: [
            {
              name: 'scan',
              description: 'd',
              system_prompt: 'p',
              tools: ['read_file'],
              skills: ['mine', 'nope', 7],
            },
          ],
        },
      },
    });
    const { warnings } = await json<{
      warnings: { code: string; value: string; spec_index: number | null }[];
    }>(response, 201);
    const skillEntries = warnings
      .filter((entry) => entry.code.endsWith('_skill'))
      .map((entry) => [entry.code, entry.value, entry.spec_index]);
    expect(skillEntries).toEqual([
      ['invalid_skill', '7', 0],
      ['unknown_skill', 'bobs-private', null],
      ['invalid_skill', 'Bad Name', null],
      ['unknown_skill', 'nope', 0],
    ]);
    const report = await json<{ report: { code: string; value: string }[] }>(
      await ctx.request('GET', '/api/agent/main/build-report', { token: alice.token }),
      200,
    );
    expect(
      report.report.filter((entry) => entry.code === 'unknown_skill').map((entry) => entry.value),
    ).toEqual(['bobs-private', 'nope']);
  });
});

describe('the OpenAPI document', () => {
  it('describes the upload body: JSON from a workdir, raw archives and multipart', async () => {
    const document = await json<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    }>(await ctx.request('GET', '/api/openapi.json'), 200);
    expect(Object.keys(document.paths['/api/skills']?.post?.requestBody?.content ?? {})).toEqual([
      'application/json',
      'application/zip',
      'application/gzip',
      'application/octet-stream',
      'multipart/form-data',
    ]);
  });
});
