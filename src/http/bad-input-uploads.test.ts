import { describe, expect, it } from 'vitest';
import { expectError } from '../../test/helpers/http/expect-error.js';
import { useBadInputContext, type BadInputIds } from '../../test/helpers/http/use-bad-input-context.js';

const input = useBadInputContext();

// Uploads: multipart bodies, read by the handler itself.
const MULTIPART_ROUTES = [
  {
    method: 'POST',
    path: '/api/conversations/{id}/attachments',
    url: (ids: BadInputIds) => `/api/conversations/${ids.conversation}/attachments`,
  },
];

describe.each(MULTIPART_ROUTES)('bad uploads on $method $path', (route) => {
  const send = (body: string, contentType: string, headers: Record<string, string> = {}) => {
    const { ctx, admin, ids } = input();
    return ctx.request(route.method, route.url(ids), {
      token: admin.token,
      body,
      headers: { 'Content-Type': contentType, ...headers },
    });
  };

  it('answers 415, 400 or 413, persisting nothing', async () => {
    const { ctx } = input();
    const before = ctx.countRows();
    await expectError(await send('{"files":[]}', 'application/json'), 415, 'unsupported_media_type');
    await expectError(await send('x', 'multipart/form-data'), 415, 'unsupported_media_type');
    await expectError(await send('garbage', 'multipart/form-data; boundary=b'), 400, 'invalid_multipart');
    await expectError(await send('--b--\r\n', 'multipart/form-data; boundary=b'), 400, 'validation_failed');
    await expectError(
      await send(
        '--b\r\nContent-Disposition: form-data; name="files"\r\n\r\ntext, not a file\r\n--b--\r\n',
        'multipart/form-data; boundary=b',
      ),
      400,
      'validation_failed',
    );
    const limits = ctx.config.files;
    await expectError(
      await send('--b--\r\n', 'multipart/form-data; boundary=b', {
        'Content-Length': String(limits.attachmentMaxBytes * limits.attachmentMaxFiles + 1024 * 1024),
      }),
      413,
      'payload_too_large',
    );
    expect(ctx.countRows()).toEqual(before);
  });
});
