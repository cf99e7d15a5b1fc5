import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Attachment } from '../core/records/attachment.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import { snapshotTree } from '../../test/helpers/workdir/snapshot-tree.js';
import {
  say,
  text,
  upload,
  useConversationFileSetup,
} from '../../test/helpers/http/use-conversation-file-setup.js';

const setup = useConversationFileSetup();

describe('attachments', () => {
  it('stores sanitised files under uploads/, numbering taken names, and records them', async () => {
    const s = await setup();
    const response = await upload(s, s.alice.token, [
      ['files', text('first'), '../../notes.txt'],
      ['files', text('second'), 'notes.txt'],
      ['file', new Blob([new Uint8Array([0, 1, 2])], { type: 'application/x-custom' }), '.hidden\u0007data'],
    ]);
    const { attachments } = await json<{ attachments: Attachment[] }>(response, 201);
    expect(attachments.map((entry) => [entry.name, entry.path, entry.size, entry.content_type])).toEqual([
      ['notes.txt', 'uploads/notes.txt', 5, 'text/plain; charset=utf-8'],
      ['notes-1.txt', 'uploads/notes-1.txt', 6, 'text/plain; charset=utf-8'],
      ['hiddendata', 'uploads/hiddendata', 3, 'application/x-custom'],
    ]);
    expect(readFileSync(path.join(s.workdir, 'uploads/notes.txt'), 'utf8')).toBe('first');
    expect(readFileSync(path.join(s.workdir, 'uploads/notes-1.txt'), 'utf8')).toBe('second');
    expect(
      attachments.every(
        (entry) => entry.conversation_id === s.conversation.id && entry.user_id === s.alice.user.id,
      ),
    ).toBe(true);
    const listed = await json<{ attachments: Attachment[] }>(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/attachments`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(listed.attachments.map((entry) => entry.id).sort()).toEqual(
      attachments.map((entry) => entry.id).sort(),
    );
  });

  it('names the attached files in the user message, and a subagent reads them through the shared workdir', async () => {
    const s = await setup();
    const { attachments } = await json<{ attachments: Attachment[] }>(
      await upload(s, s.alice.token, [['files', text('the quarterly numbers are up'), 'notes.txt']]),
      201,
    );
    const run = await say(
      s,
      'research the attached notes',
      attachments.map((entry) => entry.id),
    );
    expect(run.status).toBe('completed');
    expect(run.input).toMatchObject({
      message: 'research the attached notes\n\nAttached files: uploads/notes.txt (28 B)',
      attachments: [attachments[0]?.id],
    });
    expect(run.output).toContain('The upload says: the quarterly numbers are up');
    const [first] = await s.ctx.storage.messages.list(s.conversation.thread_id);
    expect(first?.message).toEqual({
      role: 'user',
      content: 'research the attached notes\n\nAttached files: uploads/notes.txt (28 B)',
    });
    const [child] = await s.ctx.storage.runs.listChildren(run.id);
    expect(child).toMatchObject({ run_type: 'subagent', status: 'completed' });
  });

  it('refuses attachment ids that are unknown, repeated or of another conversation, creating no run', async () => {
    const s = await setup();
    const other = await s.ctx.conversations.create(s.alice.user, { agent_id: 'main' });
    const { attachments } = await json<{ attachments: Attachment[] }>(
      await upload(s, s.alice.token, [['files', text('elsewhere'), 'a.txt']], other.id),
      201,
    );
    const mine = await json<{ attachments: Attachment[] }>(
      await upload(s, s.alice.token, [['files', text('here'), 'b.txt']]),
      201,
    );
    const before = s.ctx.dump();
    const post = (ids: unknown) =>
      s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
        token: s.alice.token,
        body: { content: 'look', attachments: ids },
      });
    await expectError(await post([attachments[0]?.id]), 404, 'attachment_not_found');
    await expectError(await post(['att_unknown']), 404, 'attachment_not_found');
    await expectError(
      await post([mine.attachments[0]?.id, mine.attachments[0]?.id]),
      400,
      'validation_failed',
    );
    await expectError(await post('att_x'), 400, 'validation_failed');
    expect(s.ctx.dump()).toEqual(before);
  });

  it('enforces count and size limits and leaves nothing behind', async () => {
    const s = await setup({ attachmentMaxFiles: 2, attachmentMaxBytes: 8 });
    // The token's first use is stamped; do it before the snapshot.
    expect((await s.ctx.request('GET', '/api/me', { token: s.alice.token })).status).toBe(200);
    // The limits a client checks before it uploads are the ones enforced.
    const limits = await json<{ limits: Record<string, number> }>(
      await s.ctx.request('GET', '/api/limits', { token: s.alice.token }),
      200,
    );
    expect(limits.limits).toEqual({ attachment_max_bytes: 8, attachment_max_files: 2 });
    expect((await s.ctx.request('GET', '/api/limits')).status).toBe(401);
    const before = s.ctx.dump();
    await expectError(
      await upload(s, s.alice.token, [
        ['files', text('a'), 'a.txt'],
        ['files', text('b'), 'b.txt'],
        ['files', text('c'), 'c.txt'],
      ]),
      400,
      'too_many_attachments',
    );
    await expectError(
      await upload(s, s.alice.token, [
        ['files', text('ok'), 'a.txt'],
        ['files', text('way too large'), 'b.txt'],
      ]),
      413,
      'attachment_too_large',
    );
    // Over the whole body limit (files x size + overhead): refused while reading.
    await expectError(
      await upload(s, s.alice.token, [['files', new Blob([new Uint8Array(600 * 1024)]), 'big.bin']]),
      413,
      'payload_too_large',
    );
    expect(s.ctx.dump()).toEqual(before);
    expect(
      existsSync(path.join(s.workdir, 'uploads')) ? readdirSync(path.join(s.workdir, 'uploads')) : [],
    ).toEqual([]);
  });

  it('answers malformed uploads with 4xx codes', async () => {
    const s = await setup();
    const url = `/api/conversations/${s.conversation.id}/attachments`;
    const raw = (body: string, contentType?: string) =>
      s.ctx.app.request(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${s.alice.token}`,
          ...(contentType ? { 'Content-Type': contentType } : {}),
        },
        body,
      });
    await expectError(await raw('{"files":[]}', 'application/json'), 415, 'unsupported_media_type');
    await expectError(await raw('x', 'multipart/form-data'), 415, 'unsupported_media_type');
    await expectError(
      await raw('not multipart at all', 'multipart/form-data; boundary=zz'),
      400,
      'invalid_multipart',
    );
    await expectError(await raw('--zz--\r\n', 'multipart/form-data; boundary=zz'), 400, 'validation_failed');
    await expectError(await upload(s, s.alice.token, [['files', 'just text']]), 400, 'validation_failed');
    await expectError(
      await upload(s, s.alice.token, [['other', text('x'), 'x.txt']]),
      400,
      'validation_failed',
    );
  });

  it('is for the owner of an active conversation only', async () => {
    const s = await setup();
    const part: [string, Blob, string] = ['files', text('x'), 'x.txt'];
    await expectError(await upload(s, s.bob.token, [part]), 404, 'conversation_not_found');
    await expectError(await upload(s, s.admin.token, [part]), 404, 'conversation_not_found');
    await expectError(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/attachments`, {
        token: s.bob.token,
      }),
      404,
      'conversation_not_found',
    );
    await s.ctx.conversations.patch(s.alice.user, s.conversation.id, { status: 'archived' });
    await expectError(await upload(s, s.alice.token, [part]), 409, 'conversation_archived');
  });

  it('never writes outside the workdir, even when uploads/ is a link leading out', async () => {
    const s = await setup();
    const outside = path.join(s.workdir, '..', 'elsewhere');
    mkdirSync(outside);
    symlinkSync(outside, path.join(s.workdir, 'uploads'));
    await expectError(
      await upload(s, s.alice.token, [['files', text('x'), 'x.txt']]),
      400,
      'path_outside_workdir',
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(await s.ctx.storage.attachments.listForConversation(s.conversation.id)).toEqual([]);
  });

  it('never writes through a link planted at the file name: to a file outside, or to a missing one', async () => {
    const s = await setup();
    const outside = path.join(s.workdir, '..', 'elsewhere');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0\n');
    mkdirSync(path.join(s.workdir, 'uploads'));
    symlinkSync(path.join(outside, 'passwd'), path.join(s.workdir, 'uploads/notes.txt'));
    symlinkSync(path.join(outside, 'created'), path.join(s.workdir, 'uploads/notes-1.txt'));
    const before = snapshotTree(outside);
    const { attachments } = await json<{ attachments: Attachment[] }>(
      await upload(s, s.alice.token, [['files', text('mine'), 'notes.txt']]),
      201,
    );
    expect(attachments.map((entry) => entry.path)).toEqual(['uploads/notes-2.txt']);
    expect(snapshotTree(outside)).toEqual(before);
    const stored = statSync(path.join(s.workdir, 'uploads/notes-2.txt'));
    // The server's file: readable inside the sandbox, never changeable there.
    expect([stored.uid, stored.mode & 0o777]).toEqual([process.getuid?.(), 0o644]);
  });
});
