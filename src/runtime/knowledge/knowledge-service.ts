import { TroupeError } from '../../core/errors.js';
import { refFilter } from '../../core/knowledge/knowledge-source-refs.js';
import { parseSearchTerms } from '../../core/knowledge/parse-search-terms.js';
import type { Storage } from '../../core/ports/storage.js';
import type {
  KnowledgeAccess,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSource,
} from '../../core/records/knowledge.js';
import type { Actor } from '../../core/records/user.js';
import type { GrantableSource } from '../agents/expert-service.js';
import { parseOrThrow } from '../../core/to-validation-error.js';
import {
  createKnowledgeSourceInputSchema,
  DEFAULT_TOP_K,
  knowledgeSearchInputSchema,
  updateKnowledgeSourceInputSchema,
  type CreateKnowledgeSourceInput,
  type KnowledgeSearchInput,
  type UpdateKnowledgeSourceInput,
} from './knowledge-input-schemas.js';
import { sharedDocumentExtractor } from './extraction/document-extractor.js';
import { DEFAULT_KNOWLEDGE_LIMITS, type KnowledgeLimits } from './knowledge-limits.js';
import { prepareKnowledgeUpload, type UploadedFile } from './prepare-knowledge-upload.js';
import {
  knowledgeSourceResources,
  resolveManageableSource,
  resolveUsableSource,
} from './resolve-knowledge-source.js';

// Callers (HTTP, CLI, bench) name the upload type through the service they hand it to.

export interface AddedDocument {
  document: KnowledgeDocument;
  /** A document of the same name was there and is gone. */
  replaced: boolean;
}

export interface KnowledgeSearchResult {
  /** The words actually searched for. */
  terms: string[];
  /** The sources searched: those of the request the caller may use right now. */
  sources: KnowledgeSource[];
  results: KnowledgeHit[];
}

export interface KnowledgeService {
  readonly limits: KnowledgeLimits;
  list(actor: Actor): Promise<KnowledgeSource[]>;
  /** By id or name; `knowledge_source_not_found` for anything the actor may not use, so ids never leak. */
  get(actor: Actor, ref: string): Promise<KnowledgeSource>;
  /** `get`, plus `forbidden` when the actor may read but not change it (uploads check this before reading). */
  getManageable(actor: Actor, ref: string): Promise<KnowledgeSource>;
  create(actor: Actor, input: CreateKnowledgeSourceInput): Promise<KnowledgeSource>;
  update(actor: Actor, ref: string, input: UpdateKnowledgeSourceInput): Promise<KnowledgeSource>;
  delete(actor: Actor, ref: string): Promise<void>;
  listDocuments(actor: Actor, ref: string): Promise<KnowledgeDocument[]>;
  /** Extracts, chunks and indexes every file, then stores them all in one transaction (all or nothing). */
  addDocuments(actor: Actor, ref: string, files: readonly UploadedFile[]): Promise<AddedDocument[]>;
  deleteDocument(actor: Actor, ref: string, documentId: string): Promise<void>;
  search(actor: Actor, ref: string, input: KnowledgeSearchInput): Promise<KnowledgeSearchResult>;
  /**
   * Searches the sources among `refs` (ids or names) that `actor` may use at this moment; the others are
   * left out silently. What `knowledge_search` calls on every use, so access is never cached.
   */
  searchSources(
    actor: Actor,
    refs: readonly string[],
    input: KnowledgeSearchInput,
  ): Promise<KnowledgeSearchResult>;
  listGrants(actor: Actor, ref: string): Promise<KnowledgeAccess[]>;
  grant(
    actor: Actor,
    ref: string,
    userId: string,
    source: GrantableSource,
  ): Promise<{ grant: KnowledgeAccess; created: boolean }>;
  revokeGrant(actor: Actor, ref: string, userId: string): Promise<void>;
}

export interface KnowledgeServiceOptions {
  limits?: Partial<KnowledgeLimits>;
}

export function createKnowledgeService(
  storage: Storage,
  options: KnowledgeServiceOptions = {},
): KnowledgeService {
  const limits: KnowledgeLimits = { ...DEFAULT_KNOWLEDGE_LIMITS, ...options.limits };
  // Documents are read in the process's extraction worker thread (extraction/document-extractor.ts).
  const extractor = sharedDocumentExtractor(limits);

  async function searchIn(
    sources: KnowledgeSource[],
    input: KnowledgeSearchInput,
  ): Promise<KnowledgeSearchResult> {
    const { query, top_k: topK } = parseOrThrow(knowledgeSearchInputSchema, input);
    const terms = parseSearchTerms(query);
    const results = await storage.knowledgeDocuments.search({
      source_ids: sources.map((source) => source.id),
      terms,
      limit: topK ?? DEFAULT_TOP_K,
    });
    return { terms, sources, results };
  }

  return {
    limits,

    list: (actor) => storage.knowledgeSources.listUsable(actor),

    get: (actor, ref) => resolveUsableSource(storage, actor, ref),

    getManageable: (actor, ref) => resolveManageableSource(storage, actor, ref),

    async create(actor, rawInput) {
      const input = parseOrThrow(createKnowledgeSourceInputSchema, rawInput);
      return storage.transaction(async (tx) => {
        const source = await tx.knowledgeSources.create({
          name: input.name,
          description: input.description,
          owner_id: actor.id,
          visibility: input.visibility,
        });
        await tx.grants.grant('knowledge_source', actor.id, source.id, 'created');
        return source;
      });
    },

    async update(actor, ref, rawInput) {
      const input = parseOrThrow(updateKnowledgeSourceInputSchema, rawInput);
      return storage.transaction(async (tx) => {
        const source = await resolveManageableSource(tx, actor, ref);
        if (input.description === undefined && input.visibility === undefined) return source;
        return tx.knowledgeSources.update(source.id, input);
      });
    },

    async delete(actor, ref) {
      await storage.transaction(async (tx) => {
        const source = await resolveManageableSource(tx, actor, ref);
        await tx.knowledgeSources.delete(source.id);
      });
    },

    async listDocuments(actor, ref) {
      const source = await resolveUsableSource(storage, actor, ref);
      return storage.knowledgeDocuments.list(source.id);
    },

    async addDocuments(actor, ref, files) {
      const source = await resolveManageableSource(storage, actor, ref);
      const prepared = await prepareKnowledgeUpload(source.id, files, limits, extractor);
      return storage.transaction(async (tx) => {
        // Checked again inside the write: the source may have been deleted while the files were read.
        const current = await resolveManageableSource(tx, actor, source.id);
        const added: AddedDocument[] = [];
        for (const entry of prepared)
          added.push(
            await tx.knowledgeDocuments.put({ ...entry.document, source_id: current.id }, entry.chunks),
          );
        return added;
      });
    },

    async deleteDocument(actor, ref, documentId) {
      await storage.transaction(async (tx) => {
        const source = await resolveManageableSource(tx, actor, ref);
        const document = await tx.knowledgeDocuments.get(documentId);
        if (document?.source_id !== source.id) {
          throw new TroupeError(
            'knowledge_document_not_found',
            `Document ${documentId} not found in "${source.name}"`,
          );
        }
        await tx.knowledgeDocuments.delete(document.id);
      });
    },

    async search(actor, ref, input) {
      return searchIn([await resolveUsableSource(storage, actor, ref)], input);
    },

    async searchSources(actor, refs, input) {
      const sources =
        refs.length === 0 ? [] : await storage.knowledgeSources.listUsable(actor, refFilter(refs));
      return searchIn(sources, input);
    },

    listGrants: (actor, ref) => knowledgeSourceResources.listGrants(storage, actor, ref),

    grant: (actor, ref, userId, grantSource) =>
      knowledgeSourceResources.grant(storage, actor, ref, userId, grantSource),

    revokeGrant: (actor, ref, userId) => knowledgeSourceResources.revokeGrant(storage, actor, ref, userId),
  };
}
