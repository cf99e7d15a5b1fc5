import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skillMd, tarGzOf, zipOf } from '../../test/helpers/skills/skill-archives.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import {
  archiveOf,
  useSkillRoutesContext,
  type SavedBody,
} from '../../test/helpers/http/use-skill-routes-context.js';

const skills = useSkillRoutesContext();

describe('creating skills', () => {
  it('takes a raw .zip body and answers the skill and its files', async () => {
    const { alice, upload } = skills();
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
    const { ctx, alice } = skills();
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
    const { alice, bob, upload, create } = skills();
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
    const { ctx, alice, upload } = skills();
    const before = ctx.countRows();
    /** An otherwise valid skill holding one more file at `entry`, refused as a whole. */
    const refusedEntry = async (entry: string) =>
      expectError(
        await upload(
          alice,
          zipOf([
            { path: 'SKILL.md', content: skillMd('evil') },
            { path: entry, content: 'x' },
          ]),
        ),
        400,
        'skill_invalid',
      );
    await refusedEntry('../../etc/cron.d/x');
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
    // Names are measured in bytes: 200 two-byte characters pass a 255-character limit but are 400 bytes.
    const longName = `${'é'.repeat(200)}.md`;
    // The entry is named (its first 200 characters).
    expect((await refusedEntry(longName)).error.message).toBe(
      `Entry ${JSON.stringify(longName.slice(0, 200))} has a name longer than 255 bytes`,
    );
    const deepPath = Array.from({ length: 6 }, () => 'd'.repeat(200)).join('/');
    expect((await refusedEntry(deepPath)).error.message).toContain('is longer than 1024 bytes');
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
    const { ctx, alice, bob } = skills();
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

describe('the OpenAPI document', () => {
  it('describes the upload body: JSON from a workdir, raw archives and multipart', async () => {
    const { ctx } = skills();
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
