import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeDocument, KnowledgeHit, KnowledgeSource } from '../core/records/knowledge.js';
import { makePdf } from '../../test/helpers/knowledge/make-pdf.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

const UPLOAD_LIMIT = 64 * 1024;

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ config: { knowledgeMaxUploadBytes: UPLOAD_LIMIT } });
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
});
afterAll(async () => ctx.close());

async function upload(token: string, source: string, form: FormData): Promise<Response> {
  return ctx.app.request(`/api/knowledge/${source}/documents`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
}

async function raw(
  token: string,
  url: string,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return ctx.app.request(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, ...headers },
    body,
  });
}

async function createSource(token: string, body: Record<string, unknown>): Promise<KnowledgeSource> {
  return (
    await json<{ source: KnowledgeSource }>(await ctx.request('POST', '/api/knowledge', { token, body }), 201)
  ).source;
}

// The first upload in a process starts the extraction worker thread (pdf.js; tsx from the sources).
describe('knowledge routes', { timeout: 60_000 }, () => {
  it('create, upload (multipart and raw), list, search, delete', async () => {
    const source = await createSource(alice.token, { name: 'team-docs', description: 'Team docs' });
    expect(source).toMatchObject({ name: 'team-docs', visibility: 'private', document_count: 0 });

    const form = new FormData();
    form.append(
      'file',
      new Blob(['# Onboarding\n\n## Laptop\n\nAsk IT for a laptop on day one.']),
      'onboarding.md',
    );
    form.append(
      'file',
      new Blob([Buffer.from(makePdf([['Holiday policy'], ['Twenty five days of paid leave.']]))]),
      'holidays.pdf',
    );
    form.append('note', 'text fields are ignored');
    const added = await json<{ documents: { document: KnowledgeDocument; replaced: boolean }[] }>(
      await upload(alice.token, 'team-docs', form),
      201,
    );
    expect(
      added.documents.map((entry) => [entry.document.name, entry.document.media_type, entry.replaced]),
    ).toEqual([
      ['onboarding.md', 'text/markdown', false],
      ['holidays.pdf', 'application/pdf', false],
    ]);

    const rawUpload = await raw(
      alice.token,
      `/api/knowledge/${source.id}/documents?filename=${encodeURIComponent('faq.html')}`,
      '<h2>FAQ</h2><p>Coffee is free.</p>',
      'text/html',
    );
    expect((await json<{ documents: unknown[] }>(rawUpload, 201)).documents).toHaveLength(1);

    const listed = await json<{ documents: KnowledgeDocument[] }>(
      await ctx.request('GET', '/api/knowledge/team-docs/documents', { token: alice.token }),
      200,
    );
    expect(listed.documents.map((document) => document.name)).toEqual([
      'faq.html',
      'holidays.pdf',
      'onboarding.md',
    ]);
    const sources = await json<{ sources: KnowledgeSource[] }>(
      await ctx.request('GET', '/api/knowledge', { token: alice.token }),
      200,
    );
    expect(sources.sources).toEqual([expect.objectContaining({ name: 'team-docs', document_count: 3 })]);

    const search = await json<{ terms: string[]; results: KnowledgeHit[] }>(
      await ctx.request('POST', '/api/knowledge/team-docs/search', {
        token: alice.token,
        body: { query: 'paid leave days?', top_k: 2 },
      }),
      200,
    );
    expect(search.terms).toEqual(['paid', 'leave', 'days']);
    expect(search.results[0]).toMatchObject({
      document_name: 'holidays.pdf',
      source_name: 'team-docs',
      location: { page: 2, heading_path: [] },
    });
    const laptop = await json<{ results: KnowledgeHit[] }>(
      await ctx.request('POST', `/api/knowledge/${source.id}/search`, {
        token: alice.token,
        body: { query: 'laptop' },
      }),
      200,
    );
    expect(laptop.results[0]?.location.heading_path).toEqual(['Onboarding', 'Laptop']);

    const faq = listed.documents.find((document) => document.name === 'faq.html');
    expect(
      (
        await ctx.request('DELETE', `/api/knowledge/team-docs/documents/${faq?.id ?? ''}`, {
          token: alice.token,
        })
      ).status,
    ).toBe(204);
    await expectError(
      await ctx.request('DELETE', `/api/knowledge/team-docs/documents/${faq?.id ?? ''}`, {
        token: alice.token,
      }),
      404,
      'knowledge_document_not_found',
    );

    const updated = await json<{ source: KnowledgeSource }>(
      await ctx.request('PUT', '/api/knowledge/team-docs', {
        token: alice.token,
        body: { visibility: 'public' },
      }),
      200,
    );
    expect(updated.source.visibility).toBe('public');
    // Public: bob reads and searches, but may not upload.
    expect((await ctx.request('GET', '/api/knowledge/team-docs', { token: bob.token })).status).toBe(200);
    await expectError(
      await raw(bob.token, '/api/knowledge/team-docs/documents?filename=x.md', 'x', 'text/markdown'),
      403,
      'forbidden',
    );

    expect((await ctx.request('DELETE', '/api/knowledge/team-docs', { token: alice.token })).status).toBe(
      204,
    );
    await expectError(
      await ctx.request('GET', `/api/knowledge/${source.id}`, { token: alice.token }),
      404,
      'knowledge_source_not_found',
    );
  });

  it('refuses uploads over the limit, declared or streamed, and stores nothing', async () => {
    await createSource(alice.token, { name: 'limits' });
    const before = ctx.countRows();
    const big = 'word '.repeat(UPLOAD_LIMIT / 4);
    await expectError(
      await raw(alice.token, '/api/knowledge/limits/documents?filename=big.txt', big, 'text/plain'),
      413,
      'payload_too_large',
    );
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 20; index += 1)
          controller.enqueue(new TextEncoder().encode('x'.repeat(8 * 1024)));
        controller.close();
      },
    });
    const streamed = await ctx.app.request('/api/knowledge/limits/documents?filename=big.txt', {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'text/plain' },
      body: stream,
      duplex: 'half',
    });
    await expectError(streamed, 413, 'payload_too_large');
    const form = new FormData();
    form.append('file', new Blob(['a'.repeat(UPLOAD_LIMIT / 2)]), 'one.txt');
    form.append('file', new Blob(['b'.repeat(UPLOAD_LIMIT / 2)]), 'two.txt');
    await expectError(await upload(alice.token, 'limits', form), 413, 'payload_too_large');
    expect(ctx.countRows()).toEqual(before);
  });

  it('answers 4xx to uploads it cannot read', async () => {
    await createSource(alice.token, { name: 'junk' });
    const url = '/api/knowledge/junk/documents';
    await expectError(await raw(alice.token, url, 'no name', 'text/plain'), 400, 'validation_failed');
    await expectError(
      await raw(alice.token, `${url}?filename=a.zip`, 'PK', 'application/zip'),
      415,
      'unsupported_media_type',
    );
    await expectError(
      await raw(alice.token, `${url}?filename=a.pdf`, 'not a pdf', 'application/pdf'),
      422,
      'document_unreadable',
    );
    await expectError(
      await raw(alice.token, `${url}?filename=a.txt`, 'a=1', 'application/x-www-form-urlencoded'),
      415,
      'unsupported_media_type',
    );
    await expectError(
      await raw(alice.token, url, '--x\r\nbroken', 'multipart/form-data; boundary=x'),
      400,
      'validation_failed',
    );
    const onlyText = new FormData();
    onlyText.append('field', 'value');
    await expectError(await upload(alice.token, 'junk', onlyText), 400, 'validation_failed');
    expect((await ctx.storage.knowledgeSources.getByName('junk'))?.document_count).toBe(0);
  });

  it('documents the upload body in OpenAPI and reports unknown sources in the build report', async () => {
    const document = await json<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    }>(await ctx.request('GET', '/api/openapi.json'), 200);
    expect(
      Object.keys(document.paths['/api/knowledge/{id}/documents']?.post?.requestBody?.content ?? {}),
    ).toContain('multipart/form-data');

    await createSource(bob.token, { name: 'bob-private' });
    await createSource(alice.token, { name: 'alice-notes' });
    const report = await json<{ report: { code: string; value: string }[] }>(
      await ctx.request('POST', '/api/agent/build-report', {
        token: alice.token,
        body: { config: { knowledge_sources: ['alice-notes', 'bob-private', 'ghost'] } },
      }),
      200,
    );
    expect(
      report.report.filter((entry) => entry.code === 'unknown_knowledge_source').map((entry) => entry.value),
    ).toEqual(['bob-private', 'ghost']);
    const created = await json<{ warnings: { code: string; value: string }[] }>(
      await ctx.request('POST', '/api/agent', {
        token: alice.token,
        body: { name: 'Reader', config: { knowledge_sources: ['ghost'] } },
      }),
      201,
    );
    expect(created.warnings).toEqual([
      expect.objectContaining({ code: 'unknown_knowledge_source', value: 'ghost' }),
    ]);
  });
});
