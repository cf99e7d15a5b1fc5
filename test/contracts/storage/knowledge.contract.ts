import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BM25 } from '../../../src/core/knowledge/bm25.js';
import { TroupeError } from '../../../src/core/errors.js';
import { chunkText } from '../../../src/core/knowledge/chunk-text.js';
import { parseSearchTerms } from '../../../src/core/knowledge/parse-search-terms.js';
import type { NewKnowledgeChunk } from '../../../src/core/ports/knowledge-storage.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { KnowledgeSource } from '../../../src/core/records/knowledge.js';
import type { User } from '../../../src/core/records/user.js';
import type { OpenedStorage } from './storage.contract.js';

/*
 * The knowledge part of the storage contract (docs/skills-and-knowledge.md): sources and grants, documents and chunks, and the
 * full-text index behind `search`, run against every adapter (FTS5 on SQLite, tsvector on PostgreSQL).
 * Ranking expectations are mostly stated as "this passage first": the engines tokenize and stem differently.
 * Where both reduce the words alike, the scores are the BM25 of core/knowledge/bm25.ts, to the last digits.
 */

const CORPUS: Record<string, string> = {
  'security.md': `# Security

## API tokens

Tokens are rotated every ninety days. To rotate a token, create a new one, switch clients over, then revoke
the old one from the settings page.

## Passwords

Troupe stores no passwords: every client authenticates with a bearer token.
`,
  'deploy.md': `# Deployment

## Ports

The server listens on port 3000 by default. Set TROUPE_PORT to choose another port.

## Containers

Build the container image with docker and run it with a mounted data volume.
`,
  'backups.md': `# Backups

The SQLite file is copied every night. To restore a backup, stop the server and replace the file with the
nightly copy.
`,
  'glossary.md': `# Glossary

A token is a unit of text a language model reads. Models count tokens for billing, and long prompts use
many tokens.
`,
};

function chunksOf(text: string): NewKnowledgeChunk[] {
  return chunkText(text, { markdown: true });
}

export function describeKnowledgeContract(adapterName: string, open: () => Promise<OpenedStorage>): void {
  describe(`Knowledge storage contract: ${adapterName}`, () => {
    let opened: OpenedStorage;
    let storage: Storage;
    let alice: User;
    let bob: User;
    let admin: User;

    beforeEach(async () => {
      opened = await open();
      storage = opened.storage;
      admin = await storage.users.create({ name: 'admin', role: 'admin' });
      alice = await storage.users.create({ name: 'alice', role: 'member' });
      bob = await storage.users.create({ name: 'bob', role: 'member' });
    });

    afterEach(async () => {
      await opened.close();
    });

    async function source(
      name: string,
      owner: User = alice,
      visibility: KnowledgeSource['visibility'] = 'private',
    ) {
      return storage.knowledgeSources.create({
        name,
        description: `${name} docs`,
        owner_id: owner.id,
        visibility,
      });
    }

    function putDocument(sourceId: string, name: string, chunks: NewKnowledgeChunk[], chars = 1) {
      return storage.knowledgeDocuments.put(
        {
          source_id: sourceId,
          name,
          media_type: 'text/markdown',
          bytes: chars,
          text_chars: chars,
          page_count: null,
        },
        chunks,
      );
    }

    async function loadCorpus(sourceId: string, names = Object.keys(CORPUS)): Promise<void> {
      for (const name of names) {
        const text = CORPUS[name] ?? '';
        await putDocument(sourceId, name, chunksOf(text), text.length);
      }
    }

    async function search(sourceIds: string[], query: string, limit = 5) {
      return storage.knowledgeDocuments.search({
        source_ids: sourceIds,
        terms: parseSearchTerms(query),
        limit,
      });
    }

    describe('sources', () => {
      it('creates, reads, updates and counts documents and chunks', async () => {
        const created = await source('handbook');
        expect(created).toMatchObject({
          name: 'handbook',
          owner_id: alice.id,
          visibility: 'private',
          document_count: 0,
          chunk_count: 0,
        });
        expect(created.id).toMatch(/^kns_[0-9a-f]{20}$/);
        expect(await storage.knowledgeSources.get(created.id)).toEqual(created);
        expect(await storage.knowledgeSources.getByName('handbook')).toEqual(created);
        await loadCorpus(created.id, ['security.md', 'backups.md']);
        const counted = await storage.knowledgeSources.get(created.id);
        expect(counted?.document_count).toBe(2);
        expect(counted?.chunk_count).toBe(
          chunksOf(CORPUS['security.md'] ?? '').length + chunksOf(CORPUS['backups.md'] ?? '').length,
        );
        const updated = await storage.knowledgeSources.update(created.id, {
          visibility: 'public',
          description: 'All of it',
        });
        expect(updated).toMatchObject({
          visibility: 'public',
          description: 'All of it',
          name: 'handbook',
          document_count: 2,
        });
      });

      it('refuses a taken name with knowledge_source_name_taken, whoever owns it', async () => {
        await source('handbook', alice);
        const error = await source('handbook', bob).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(TroupeError);
        expect((error as TroupeError).code).toBe('knowledge_source_name_taken');
      });

      it('lists what an actor may use: own, public, granted; admins see all', async () => {
        const own = await source('alice-own');
        const open = await source('bob-public', bob, 'public');
        const granted = await source('bob-shared', bob, 'shared');
        const hidden = await source('bob-private', bob);
        await storage.grants.grant('knowledge_source', alice.id, granted.id, 'granted');
        const names = async (
          actor: User,
          filter?: Parameters<Storage['knowledgeSources']['listUsable']>[1],
        ) => (await storage.knowledgeSources.listUsable(actor, filter)).map((entry) => entry.name);
        expect(await names(alice)).toEqual(['alice-own', 'bob-public', 'bob-shared']);
        expect(await names(admin)).toEqual(['alice-own', 'bob-private', 'bob-public', 'bob-shared']);
        expect(await names(alice, { names: ['bob-private', 'bob-public'] })).toEqual(['bob-public']);
        expect(await names(alice, { ids: [own.id, hidden.id], names: ['bob-shared'] })).toEqual([
          'alice-own',
          'bob-shared',
        ]);
        expect(await names(alice, { ids: [], names: [] })).toEqual([]);
        expect(open.visibility).toBe('public');

        expect(await storage.grants.revoke('knowledge_source', alice.id, granted.id)).toBe(true);
        expect(await storage.grants.revoke('knowledge_source', alice.id, granted.id)).toBe(false);
        expect(await names(alice)).toEqual(['alice-own', 'bob-public']);
      });

      it('keeps the first grant and lists grants', async () => {
        const shared = await source('shared', bob, 'shared');
        const first = await storage.grants.grant('knowledge_source', alice.id, shared.id, 'purchased');
        const again = await storage.grants.grant('knowledge_source', alice.id, shared.id, 'granted');
        expect(again).toEqual(first);
        expect(await storage.grants.has('knowledge_source', alice.id, shared.id)).toBe(true);
        expect(await storage.grants.has('knowledge_source', bob.id, shared.id)).toBe(false);
        expect(await storage.grants.list('knowledge_source', shared.id)).toEqual([first]);
      });

      it('deletes a source with its documents, chunks, index entries and grants', async () => {
        const doomed = await source('doomed', alice, 'shared');
        const kept = await source('kept');
        await loadCorpus(doomed.id);
        await loadCorpus(kept.id, ['security.md']);
        await storage.grants.grant('knowledge_source', bob.id, doomed.id, 'granted');
        expect(await storage.knowledgeSources.delete(doomed.id)).toBe(true);
        expect(await storage.knowledgeSources.delete(doomed.id)).toBe(false);
        expect(await storage.knowledgeSources.get(doomed.id)).toBeUndefined();
        expect(await storage.knowledgeDocuments.list(doomed.id)).toEqual([]);
        expect(await storage.grants.list('knowledge_source', doomed.id)).toEqual([]);
        expect(await search([doomed.id], 'rotate token')).toEqual([]);
        expect((await search([kept.id], 'rotate token'))[0]?.document_name).toBe('security.md');
      });
    });

    describe('documents', () => {
      it('stores a document with its chunks and lists documents by name', async () => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id, ['security.md', 'backups.md']);
        const documents = await storage.knowledgeDocuments.list(handbook.id);
        expect(documents.map((document) => document.name)).toEqual(['backups.md', 'security.md']);
        const [backups] = documents;
        expect(backups).toMatchObject({
          source_id: handbook.id,
          media_type: 'text/markdown',
          page_count: null,
          chunk_count: 1,
        });
        expect(backups?.id).toMatch(/^kdc_[0-9a-f]{20}$/);
        expect(await storage.knowledgeDocuments.get(backups?.id ?? '')).toEqual(backups);
      });

      it('replaces a document uploaded again under the same name, index included', async () => {
        const handbook = await source('handbook');
        const text = 'The old wording mentions zeppelins.';
        const doc = {
          source_id: handbook.id,
          name: 'notes.txt',
          media_type: 'text/plain' as const,
          bytes: 1,
          text_chars: 1,
          page_count: null,
        };
        const first = await storage.knowledgeDocuments.put(doc, chunkText(text));
        expect(first.replaced).toBe(false);
        const second = await storage.knowledgeDocuments.put(
          doc,
          chunkText('The new wording mentions submarines.'),
        );
        expect(second.replaced).toBe(true);
        expect(await storage.knowledgeDocuments.get(first.document.id)).toBeUndefined();
        expect(await storage.knowledgeDocuments.list(handbook.id)).toEqual([second.document]);
        expect(await search([handbook.id], 'zeppelins')).toEqual([]);
        expect((await search([handbook.id], 'submarines'))[0]?.document_id).toBe(second.document.id);
      });

      it('deletes a document and its chunks from the index', async () => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id, ['security.md', 'backups.md']);
        const security = (await storage.knowledgeDocuments.list(handbook.id)).find(
          (document) => document.name === 'security.md',
        );
        expect(await storage.knowledgeDocuments.delete(security?.id ?? '')).toBe(true);
        expect(await storage.knowledgeDocuments.delete(security?.id ?? '')).toBe(false);
        expect(await search([handbook.id], 'rotate tokens')).toEqual([]);
        expect((await storage.knowledgeSources.get(handbook.id))?.document_count).toBe(1);
      });

      it('leaves nothing behind, index included, when the surrounding transaction fails', async () => {
        const handbook = await source('handbook');
        await expect(
          storage.transaction(async (tx) => {
            await tx.knowledgeDocuments.put(
              {
                source_id: handbook.id,
                name: 'x.md',
                media_type: 'text/markdown',
                bytes: 1,
                text_chars: 1,
                page_count: null,
              },
              chunkText('Quokkas are small marsupials.'),
            );
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await storage.knowledgeDocuments.list(handbook.id)).toEqual([]);
        expect(await search([handbook.id], 'quokkas')).toEqual([]);
      });
    });

    describe('search', () => {
      it.each([
        ['How do I rotate an API token?', 'security.md', ['Security', 'API tokens']],
        ['which port does the server listen on', 'deploy.md', ['Deployment', 'Ports']],
        ['restore the nightly backup', 'backups.md', ['Backups']],
        ['how models count tokens for billing', 'glossary.md', ['Glossary']],
        ['docker container image', 'deploy.md', ['Deployment', 'Containers']],
      ])('ranks the expected passage first for "%s"', async (query, document, headingPath) => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id);
        const hits = await search([handbook.id], query);
        expect(hits[0]).toMatchObject({ document_name: document, location: { heading_path: headingPath } });
      });

      it('returns passages with their source, document, exact location and descending scores', async () => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id);
        const hits = await search([handbook.id], 'token', 10);
        expect(hits.length).toBeGreaterThan(1);
        for (const [index, hit] of hits.entries()) {
          const original = CORPUS[hit.document_name] ?? '';
          expect(original.slice(hit.location.start, hit.location.end)).toBe(hit.text);
          expect(hit).toMatchObject({
            source_id: handbook.id,
            source_name: 'handbook',
            location: { page: null },
          });
          expect(hit.score).toBeGreaterThan(0);
          if (index > 0) expect(hit.score).toBeLessThanOrEqual(hits[index - 1]?.score ?? Infinity);
        }
        expect(await search([handbook.id], 'token', 1)).toHaveLength(1);
      });

      it('searches only the given sources', async () => {
        const mine = await source('mine');
        const theirs = await source('theirs', bob);
        await loadCorpus(mine.id, ['backups.md']);
        await loadCorpus(theirs.id, ['security.md']);
        expect(await search([mine.id], 'rotate token')).toEqual([]);
        expect((await search([theirs.id], 'rotate token'))[0]?.source_name).toBe('theirs');
        const both = await search([mine.id, theirs.id], 'rotate token restore');
        expect(new Set(both.map((hit) => hit.source_name))).toEqual(new Set(['mine', 'theirs']));
      });

      it('scores with the documented BM25 over the searched sources', async () => {
        const zoo = await source('zoo');
        const chunk = (text: string, heading_path: string[] = []): NewKnowledgeChunk => ({
          text,
          heading_path,
          page: null,
          start: 0,
          end: text.length,
        });
        await putDocument(zoo.id, 'a.md', [chunk('zebra lion lion'), chunk('lion tiger', ['Zebra'])]);
        await putDocument(zoo.id, 'b.md', [chunk('tiger tiger tiger tiger lion')]);
        // Elsewhere, and not searched: it must change nothing below.
        await putDocument((await source('farm', bob)).id, 'c.md', [chunk('zebra '.repeat(50))]);
        const { k1, b, headingWeight } = BM25;
        const n = 3;
        const avgLength = (3 + 3 + 5) / n;
        const bm25 = (tf: number, length: number, df: number) =>
          (Math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (k1 + 1)) /
          (tf + k1 * (1 - b + (b * length) / avgLength));
        const hits = await search([zoo.id], 'zebra', 5);
        expect(hits.map((hit) => [hit.text, hit.location.heading_path])).toEqual([
          ['lion tiger', ['Zebra']],
          ['zebra lion lion', []],
        ]);
        expect(hits[0]?.score).toBeCloseTo(bm25(headingWeight, 3, 2), 12);
        expect(hits[1]?.score).toBeCloseTo(bm25(1, 3, 2), 12);
        const both = await search([zoo.id], 'tiger zebra', 5);
        expect(both[0]?.text).toBe('lion tiger');
        expect(both[0]?.score).toBeCloseTo(bm25(headingWeight, 3, 2) + bm25(1, 3, 2), 12);
      });

      it.each([
        ['another tenant uploads', 'bob', 'private'],
        ['a source the user may not read gets', 'admin', 'shared'],
      ] as const)(
        'keeps hits and scores identical when %s a document with the query words',
        async (_case, ownerName, visibility) => {
          const handbook = await source('handbook');
          await loadCorpus(handbook.id);
          const before = await search([handbook.id], 'rotate the API token', 10);
          expect(before[0]?.location.heading_path).toEqual(['Security', 'API tokens']);

          const owner = ownerName === 'bob' ? bob : admin;
          const other = await source(`other-${ownerName}`, owner, visibility);
          const words = 'rotate the API token tokens rotation '.repeat(40);
          await putDocument(other.id, 'flood.md', chunksOf(`# API tokens\n\n${words}`));
          await loadCorpus(other.id);
          expect(await search([handbook.id], 'rotate the API token', 10)).toEqual(before);
          // The other source does count once searched: the statistics follow the searched sources.
          const together = await search([handbook.id, other.id], 'rotate the API token', 10);
          const mine = together.find((hit) => hit.source_id === handbook.id);
          expect(mine?.score).not.toBe(before[0]?.score);
        },
      );

      it('answers nothing for no terms, no sources or no match', async () => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id);
        expect(
          await storage.knowledgeDocuments.search({ source_ids: [handbook.id], terms: [], limit: 5 }),
        ).toEqual([]);
        expect(
          await storage.knowledgeDocuments.search({ source_ids: [], terms: ['token'], limit: 5 }),
        ).toEqual([]);
        expect(await search([handbook.id], 'xylophone')).toEqual([]);
      });

      it('never lets a term be read as query syntax', async () => {
        const handbook = await source('handbook');
        await loadCorpus(handbook.id);
        const hostile = [
          'he said "rotate',
          'a OR b',
          'NEAR(token port)',
          "o'brien",
          'x:*',
          '!&|()',
          'token*',
          '-port',
          '\\',
          'AND',
          'NOT',
        ];
        // Every engine must take them as plain words: `token*` and `-port` still find their passages.
        const hits = await storage.knowledgeDocuments.search({
          source_ids: [handbook.id],
          terms: hostile,
          limit: 10,
        });
        expect(hits.length).toBeGreaterThan(0);
        expect(hits.every((hit) => hit.source_id === handbook.id)).toBe(true);
        for (const term of hostile) {
          await expect(
            storage.knowledgeDocuments.search({ source_ids: [handbook.id], terms: [term], limit: 3 }),
          ).resolves.toBeInstanceOf(Array);
        }
      });
    });
  });
}
