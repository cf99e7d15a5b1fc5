import { z } from 'zod';
import {
  createKnowledgeSourceInputSchema,
  knowledgeSearchInputSchema,
  updateKnowledgeSourceInputSchema,
} from '../../runtime/knowledge/knowledge-input-schemas.js';
import type { AppDependencies } from '../app-dependencies.js';
import { readUpload } from '../read-upload.js';
import type { RouteRegistry } from '../route-registry.js';
import { grantBodySchema } from './expert-routes.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const sourceId = z.string().min(1).max(200).describe('Knowledge source id or name');
const sourceParams = z.object({ id: sourceId });
const documentParams = z.object({
  id: sourceId,
  document_id: z.string().min(1).max(200).describe('Document id'),
});
const grantParams = z.object({
  id: sourceId,
  user_id: z.string().min(1).max(200).describe('The user whose grant is revoked'),
});
const uploadQuery = z.object({
  filename: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('File name of a raw (non-multipart) upload, e.g. guide.md'),
});

const BINARY = { type: 'string', format: 'binary' };
const UPLOAD_BODY = {
  'multipart/form-data': {
    type: 'object',
    properties: {
      file: { type: 'array', items: BINARY, description: 'One or more documents (.md, .txt, .html, .pdf)' },
    },
  },
  'text/markdown': BINARY,
  'text/plain': BINARY,
  'text/html': BINARY,
  'application/pdf': BINARY,
  'application/octet-stream': BINARY,
};

/** Knowledge sources (docs/skills-and-knowledge.md): sources, their documents, a search to try them, and access grants. */
export function registerKnowledgeRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const { knowledge } = deps;

  registry.add({
    method: 'get',
    path: '/api/knowledge',

    response: RESPONSES.knowledgeSources,
    summary:
      'Knowledge sources I can read (own, granted, public; admins: all), with document and chunk counts',
    tag: 'knowledge',
    access: 'user',
    handler: async ({ c, actor }) => c.json({ sources: await knowledge.list(actor) }),
  });

  registry.add({
    method: 'post',
    path: '/api/knowledge',
    errors: ['knowledge_source_name_taken'],

    response: RESPONSES.knowledgeSource,
    summary: 'Create a knowledge source (its name is unique and is what agent configs list)',
    tag: 'knowledge',
    access: 'user',
    status: 201,
    body: createKnowledgeSourceInputSchema,
    handler: async ({ c, actor, body }) => c.json({ source: await knowledge.create(actor, body) }, 201),
  });

  registry.add({
    method: 'get',
    path: '/api/knowledge/{id}',

    response: RESPONSES.knowledgeSource,
    summary: 'One knowledge source by id or name',
    tag: 'knowledge',
    access: 'user',
    params: sourceParams,
    handler: async ({ c, actor, params }) => c.json({ source: await knowledge.get(actor, params.id) }),
  });

  registry.add({
    method: 'put',
    path: '/api/knowledge/{id}',
    errors: ['knowledge_source_name_taken', 'forbidden'],
    response: RESPONSES.knowledgeSource,
    summary: 'Change the description or visibility of a knowledge source (owner or admin)',
    tag: 'knowledge',
    access: 'user',
    params: sourceParams,
    body: updateKnowledgeSourceInputSchema,
    handler: async ({ c, actor, params, body }) =>
      c.json({ source: await knowledge.update(actor, params.id, body) }),
  });

  registry.add({
    method: 'delete',
    path: '/api/knowledge/{id}',
    summary: 'Delete a knowledge source with its documents and index (owner or admin)',
    tag: 'knowledge',
    access: 'user',
    status: 204,
    params: sourceParams,
    handler: async ({ c, actor, params }) => {
      await knowledge.delete(actor, params.id);
      return c.body(null, 204);
    },
  });

  registry.add({
    method: 'get',
    path: '/api/knowledge/{id}/documents',

    response: RESPONSES.knowledgeDocuments,
    summary: 'Documents of a knowledge source',
    tag: 'knowledge',
    access: 'user',
    params: sourceParams,
    handler: async ({ c, actor, params }) =>
      c.json({ documents: await knowledge.listDocuments(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/knowledge/{id}/documents',
    errors: ['document_unreadable', 'document_too_large', 'unsupported_media_type', 'forbidden'],

    response: RESPONSES.addedDocuments,
    summary:
      'Upload documents (Markdown, text, HTML, PDF): multipart/form-data, or a raw body with ?filename=NAME',
    description:
      'Each document is text-extracted, chunked and indexed; a document with the same name is replaced. All ' +
      'files of one upload are stored together or not at all. The request is limited to TROUPE_KNOWLEDGE_MAX_UPLOAD_BYTES (413).',
    tag: 'knowledge',
    access: 'user',
    status: 201,
    params: sourceParams,
    query: uploadQuery,
    consumes: UPLOAD_BODY,
    handler: async ({ c, actor, params, query }) => {
      // Access first, so another user's id answers 404 (a reader's, 403) before any byte of the body is read.
      const source = await knowledge.getManageable(actor, params.id);
      const files = await readUpload(c, knowledge.limits.maxUploadBytes, query.filename);
      return c.json({ documents: await knowledge.addDocuments(actor, source.id, files) }, 201);
    },
  });

  registry.add({
    method: 'delete',
    path: '/api/knowledge/{id}/documents/{document_id}',
    summary: 'Delete a document and its passages from the index (owner or admin)',
    tag: 'knowledge',
    access: 'user',
    status: 204,
    params: documentParams,
    handler: async ({ c, actor, params }) => {
      await knowledge.deleteDocument(actor, params.id, params.document_id);
      return c.body(null, 204);
    },
  });

  registry.add({
    method: 'post',
    path: '/api/knowledge/{id}/search',

    response: RESPONSES.knowledgeSearch,
    summary:
      'Try a search: ranked passages with document, location (heading path, page, char range) and score',
    tag: 'knowledge',
    access: 'user',
    params: sourceParams,
    body: knowledgeSearchInputSchema,
    handler: async ({ c, actor, params, body }) => {
      const { terms, results } = await knowledge.search(actor, params.id, body);
      return c.json({ query: body.query, terms, results });
    },
  });

  registry.add({
    method: 'get',
    path: '/api/knowledge/{id}/grants',

    response: RESPONSES.knowledgeGrants,
    summary: 'Who holds an access grant on a knowledge source (owner or admin)',
    tag: 'knowledge',
    access: 'user',
    params: sourceParams,
    handler: async ({ c, actor, params }) => c.json({ grants: await knowledge.listGrants(actor, params.id) }),
  });

  registry.add({
    method: 'post',
    path: '/api/knowledge/{id}/grants',

    response: RESPONSES.knowledgeGrant,
    summary: 'Grant a user read access (admins always; owners on shared sources); idempotent',
    description: 'Answers 201 with the new grant, or 200 with the existing one (its first source is kept).',
    tag: 'knowledge',
    access: 'user',
    status: 201,
    params: sourceParams,
    body: grantBodySchema,
    handler: async ({ c, actor, params, body }) => {
      const { grant, created } = await knowledge.grant(actor, params.id, body.user_id, body.source);
      return c.json({ grant }, created ? 201 : 200);
    },
  });

  registry.add({
    method: 'delete',
    path: '/api/knowledge/{id}/grants/{user_id}',
    summary: "Revoke a user's access to a knowledge source (admins always; owners on shared sources)",
    tag: 'knowledge',
    access: 'user',
    status: 204,
    params: grantParams,
    handler: async ({ c, actor, params }) => {
      await knowledge.revokeGrant(actor, params.id, params.user_id);
      return c.body(null, 204);
    },
  });
}
