import type { ForeignIdAttempt } from './foreign-id-attempt.js';

/** Knowledge sources: documents, search and grants. */
export const KNOWLEDGE_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'get knowledge source',
    method: 'GET',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'get knowledge source by name',
    method: 'GET',
    url: () => '/api/knowledge/alice-notes',
    code: 'knowledge_source_not_found',
  },
  {
    name: 'update knowledge source',
    method: 'PUT',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}`,
    body: () => ({ visibility: 'public' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'delete knowledge source',
    method: 'DELETE',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'list knowledge documents',
    method: 'GET',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/documents`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'upload a knowledge document',
    method: 'POST',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/documents?filename=pwned.md`,
    body: () => ({ text: 'pwned' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'delete a knowledge document',
    method: 'DELETE',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/documents/${mine.documentId}`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'search a knowledge source',
    method: 'POST',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/search`,
    body: () => ({ query: 'vault code' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'list knowledge grants',
    method: 'GET',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/grants`,
    code: 'knowledge_source_not_found',
  },
  {
    name: 'grant myself a knowledge source',
    method: 'POST',
    url: ({ mine }) => `/api/knowledge/${mine.sourceId}/grants`,
    body: ({ bob }) => ({ user_id: bob.user.id, source: 'granted' }),
    code: 'knowledge_source_not_found',
  },
  {
    name: 'revoke the knowledge owner grant',
    method: 'DELETE',
    url: ({ mine, alice }) => `/api/knowledge/${mine.sourceId}/grants/${alice.user.id}`,
    code: 'knowledge_source_not_found',
  },
];
