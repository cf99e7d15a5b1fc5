import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TroupeError, type ErrorCode } from '../../core/errors.js';
import type { User } from '../../core/records/user.js';
import { createTestStorage, type TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createKnowledgeService, type KnowledgeService } from './knowledge-service.js';
import type { UploadedFile } from './prepare-knowledge-upload.js';
import { makePdf } from '../../../test/helpers/knowledge/make-pdf.js';

let store: TestStorage;
let knowledge: KnowledgeService;
let alice: User;
let bob: User;
let admin: User;

beforeEach(async () => {
  store = await createTestStorage();
  knowledge = createKnowledgeService(store.storage, {
    limits: { maxFilesPerUpload: 3, maxTextChars: 5_000 },
  });
  alice = await store.storage.users.create({ name: 'alice', role: 'member' });
  bob = await store.storage.users.create({ name: 'bob', role: 'member' });
  admin = await store.storage.users.create({ name: 'root', role: 'admin' });
});
afterEach(async () => store.close());

const file = (name: string, text: string): UploadedFile => ({ name, bytes: new TextEncoder().encode(text) });

async function code(promise: Promise<unknown>): Promise<ErrorCode | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return error instanceof TroupeError ? error.code : undefined;
}

describe('knowledge sources: who may do what', () => {
  it('hides a private source from other members: every operation is knowledge_source_not_found', async () => {
    const source = await knowledge.create(alice, { name: 'secret-notes' });
    await knowledge.addDocuments(alice, source.id, [file('a.md', 'Hidden words.')]);
    for (const ref of [source.id, 'secret-notes']) {
      expect(await code(knowledge.get(bob, ref))).toBe('knowledge_source_not_found');
      expect(await code(knowledge.listDocuments(bob, ref))).toBe('knowledge_source_not_found');
      expect(await code(knowledge.search(bob, ref, { query: 'hidden' }))).toBe('knowledge_source_not_found');
      expect(await code(knowledge.addDocuments(bob, ref, [file('b.md', 'x')]))).toBe(
        'knowledge_source_not_found',
      );
      expect(await code(knowledge.update(bob, ref, { visibility: 'public' }))).toBe(
        'knowledge_source_not_found',
      );
      expect(await code(knowledge.delete(bob, ref))).toBe('knowledge_source_not_found');
      expect(await code(knowledge.listGrants(bob, ref))).toBe('knowledge_source_not_found');
      expect(await code(knowledge.grant(bob, ref, bob.id, 'granted'))).toBe('knowledge_source_not_found');
    }
    expect(
      (await knowledge.searchSources(bob, [source.id, 'secret-notes'], { query: 'hidden' })).results,
    ).toEqual([]);
    expect(await knowledge.list(bob)).toEqual([]);
    // Admins see and search everything.
    expect((await knowledge.search(admin, 'secret-notes', { query: 'hidden' })).results).toHaveLength(1);
  });

  it('lets readers of a public or granted source search it, but only managers change it', async () => {
    const open = await knowledge.create(alice, { name: 'open-notes', visibility: 'public' });
    await knowledge.addDocuments(alice, open.id, [file('a.md', 'Public words.')]);
    expect((await knowledge.search(bob, 'open-notes', { query: 'public' })).results).toHaveLength(1);
    expect(await code(knowledge.addDocuments(bob, 'open-notes', [file('b.md', 'x')]))).toBe('forbidden');
    expect(await code(knowledge.getManageable(bob, 'open-notes'))).toBe('forbidden');
    expect(await code(knowledge.delete(bob, 'open-notes'))).toBe('forbidden');

    const shared = await knowledge.create(alice, { name: 'shared-notes', visibility: 'shared' });
    expect(await code(knowledge.get(bob, shared.id))).toBe('knowledge_source_not_found');
    const { created } = await knowledge.grant(alice, shared.id, bob.id, 'granted');
    expect(created).toBe(true);
    expect((await knowledge.get(bob, shared.id)).name).toBe('shared-notes');
    expect(await code(knowledge.grant(bob, shared.id, bob.id, 'granted'))).toBe('forbidden');
    await knowledge.revokeGrant(alice, shared.id, bob.id);
    expect(await code(knowledge.get(bob, shared.id))).toBe('knowledge_source_not_found');
    expect(await code(knowledge.revokeGrant(alice, shared.id, alice.id))).toBe('forbidden');
    expect(await code(knowledge.revokeGrant(alice, shared.id, bob.id))).toBe('grant_not_found');
    // Owners grant on shared sources only; admins always.
    const mine = await knowledge.create(alice, { name: 'private-notes' });
    expect(await code(knowledge.grant(alice, mine.id, bob.id, 'granted'))).toBe('forbidden');
    expect((await knowledge.grant(admin, mine.id, bob.id, 'granted')).created).toBe(true);
    expect(await code(knowledge.grant(admin, mine.id, 'usr_nobody', 'granted'))).toBe('user_not_found');
  });

  it('validates names and refuses a taken one', async () => {
    expect(await code(knowledge.create(alice, { name: 'Bad Name' }))).toBe('validation_failed');
    expect(await code(knowledge.create(alice, { name: 'kns_0123456789abcdef0123' }))).toBe(
      'validation_failed',
    );
    await knowledge.create(alice, { name: 'taken' });
    expect(await code(knowledge.create(bob, { name: 'taken' }))).toBe('knowledge_source_name_taken');
  });
});

// The first upload in a process starts the extraction worker thread (pdf.js; tsx from the sources).
describe('knowledge documents: uploads', { timeout: 60_000 }, () => {
  it('indexes every file of an upload and replaces a document uploaded again', async () => {
    const source = await knowledge.create(alice, { name: 'docs' });
    const pdf = makePdf([['Page one words'], ['Page two mentions the lighthouse']]);
    const added = await knowledge.addDocuments(alice, 'docs', [
      file('guide.md', '# Guide\n\nRead me.'),
      { name: 'page.html', bytes: new TextEncoder().encode('<h1>Page</h1><script>x()</script><p>Hello</p>') },
      { name: 'scan.pdf', bytes: pdf },
    ]);
    expect(
      added.map(({ document, replaced }) => [
        document.name,
        document.media_type,
        document.page_count,
        replaced,
      ]),
    ).toEqual([
      ['guide.md', 'text/markdown', null, false],
      ['page.html', 'text/html', null, false],
      ['scan.pdf', 'application/pdf', 2, false],
    ]);
    const [again] = await knowledge.addDocuments(alice, source.id, [
      file('guide.md', '# Guide\n\nNew text.'),
    ]);
    expect(again?.replaced).toBe(true);
    expect((await knowledge.listDocuments(alice, 'docs')).map((document) => document.name)).toEqual([
      'guide.md',
      'page.html',
      'scan.pdf',
    ]);
    const { results } = await knowledge.search(alice, 'docs', { query: 'lighthouse' });
    expect(results[0]).toMatchObject({ document_name: 'scan.pdf', location: { page: 2 } });
    expect((await knowledge.search(alice, 'docs', { query: 'x()' })).results).toEqual([]);
  });

  it('stores nothing when any file of the upload fails', async () => {
    const source = await knowledge.create(alice, { name: 'docs' });
    const before = await store.storage.knowledgeDocuments.list(source.id);
    const cases: [UploadedFile[], ErrorCode][] = [
      [
        [file('ok.md', 'fine'), { name: 'bad.pdf', bytes: new TextEncoder().encode('not a pdf') }],
        'document_unreadable',
      ],
      [[file('ok.md', 'fine'), file('archive.zip', 'PK')], 'unsupported_media_type'],
      [[file('ok.md', 'fine'), file('empty.md', ' \n ')], 'document_unreadable'],
      [[file('ok.md', 'fine'), file('huge.txt', 'w '.repeat(3_000))], 'payload_too_large'],
      [[file('ok.md', 'fine'), file('dir/ok.md', 'again')], 'validation_failed'],
      [[file('a.md', 'a'), file('b.md', 'b'), file('c.md', 'c'), file('d.md', 'd')], 'validation_failed'],
      [[file('../', 'no name')], 'validation_failed'],
      [[], 'validation_failed'],
    ];
    for (const [files, expected] of cases) {
      expect(await code(knowledge.addDocuments(alice, source.id, files))).toBe(expected);
    }
    expect(await store.storage.knowledgeDocuments.list(source.id)).toEqual(before);
    expect((await knowledge.search(alice, 'docs', { query: 'fine' })).results).toEqual([]);
  });

  it('deletes a document only through its own source', async () => {
    const docs = await knowledge.create(alice, { name: 'docs' });
    const other = await knowledge.create(alice, { name: 'other' });
    const [added] = await knowledge.addDocuments(alice, docs.id, [file('a.md', 'Alpha.')]);
    const id = added?.document.id ?? '';
    expect(await code(knowledge.deleteDocument(alice, other.id, id))).toBe('knowledge_document_not_found');
    expect(await code(knowledge.deleteDocument(bob, docs.id, id))).toBe('knowledge_source_not_found');
    await knowledge.deleteDocument(alice, docs.id, id);
    expect(await knowledge.listDocuments(alice, docs.id)).toEqual([]);
  });

  it('checks search input', async () => {
    await knowledge.create(alice, { name: 'docs' });
    expect(await code(knowledge.search(alice, 'docs', { query: '' }))).toBe('validation_failed');
    expect(await code(knowledge.search(alice, 'docs', { query: 'x', top_k: 21 }))).toBe('validation_failed');
    expect(await knowledge.search(alice, 'docs', { query: '"*()' })).toMatchObject({
      terms: [],
      results: [],
    });
  });
});
