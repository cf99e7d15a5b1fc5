import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import { say, useConversationFileSetup } from '../../test/helpers/http/use-conversation-file-setup.js';

const setup = useConversationFileSetup();

describe('artifacts', () => {
  it('lists a presented file and downloads it with its type, name and safety headers', async () => {
    const s = await setup();
    expect((await say(s, 'write the report')).status).toBe('completed');
    const { artifacts } = await json<{
      artifacts: { id: string; path: string; title: string; size: number }[];
    }>(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/artifacts`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(artifacts).toEqual([
      expect.objectContaining({ path: 'out/report.md', title: 'Quarterly report', size: 19 }),
    ]);
    const url = `/api/conversations/${s.conversation.id}/artifacts/${artifacts[0]?.id}/download`;
    const download = await s.ctx.request('GET', url, { token: s.alice.token });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Quarterly report\n');
    expect(Object.fromEntries(download.headers)).toMatchObject({
      'content-type': 'text/markdown; charset=utf-8',
      'content-length': '19',
      'content-disposition': `attachment; filename="report.md"; filename*=UTF-8''report.md`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    // An admin may read it; another member may not even learn it exists.
    expect((await s.ctx.request('GET', url, { token: s.admin.token })).status).toBe(200);
    await expectError(await s.ctx.request('GET', url, { token: s.bob.token }), 404, 'conversation_not_found');
    await expectError(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/artifacts`, { token: s.bob.token }),
      404,
      'conversation_not_found',
    );
    // The id belongs to this conversation only.
    const other = await s.ctx.conversations.create(s.alice.user, { agent_id: 'main' });
    await expectError(
      await s.ctx.request('GET', `/api/conversations/${other.id}/artifacts/${artifacts[0]?.id}/download`, {
        token: s.alice.token,
      }),
      404,
      'artifact_not_found',
    );
    await expectError(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/artifacts/art_nope/download`, {
        token: s.alice.token,
      }),
      404,
      'artifact_not_found',
    );

    // The file is read at download time: changed content is sent; a file swapped for a link outside, or gone, is 404.
    writeFileSync(path.join(s.workdir, 'out/report.md'), 'v2');
    expect(await (await s.ctx.request('GET', url, { token: s.alice.token })).text()).toBe('v2');
    rmSync(path.join(s.workdir, 'out/report.md'));
    writeFileSync(path.join(s.workdir, '..', 'secret.txt'), 'secret');
    symlinkSync(path.join(s.workdir, '..', 'secret.txt'), path.join(s.workdir, 'out/report.md'));
    await expectError(
      await s.ctx.request('GET', url, { token: s.alice.token }),
      404,
      'artifact_file_missing',
    );
    rmSync(path.join(s.workdir, 'out/report.md'));
    await expectError(
      await s.ctx.request('GET', url, { token: s.alice.token }),
      404,
      'artifact_file_missing',
    );
  });

  it('refuses a download over the size limit with 413 artifact_too_large', async () => {
    const s = await setup({ artifactMaxDownloadBytes: 10 });
    await say(s, 'write the report');
    const [artifact] = await s.ctx.storage.artifacts.listForConversation(s.conversation.id);
    const body = await expectError(
      await s.ctx.request(
        'GET',
        `/api/conversations/${s.conversation.id}/artifacts/${artifact?.id}/download`,
        { token: s.alice.token },
      ),
      413,
      'artifact_too_large',
    );
    expect(body.error.message).toContain('10 bytes');
  });
});
