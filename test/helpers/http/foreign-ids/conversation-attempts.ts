import type { ForeignIdAttempt } from './foreign-id-attempt.js';
import { MULTIPART, multipartFile } from './use-foreign-ids-world.js';

/** Conversations: messages, status panel, artifacts and attachments. */
export const CONVERSATION_ATTEMPTS: ForeignIdAttempt[] = [
  {
    name: 'get conversation',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}`,
    code: 'conversation_not_found',
  },
  {
    name: 'patch conversation',
    method: 'PATCH',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}`,
    body: () => ({ title: 'Pwned', status: 'archived' }),
    code: 'conversation_not_found',
  },
  {
    name: 'restore (unarchive) conversation',
    method: 'PATCH',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}`,
    body: () => ({ status: 'active' }),
    code: 'conversation_not_found',
  },
  {
    name: 'read messages',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/messages`,
    code: 'conversation_not_found',
  },
  {
    name: 'post message',
    method: 'POST',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/messages`,
    body: () => ({ content: 'hijack' }),
    code: 'conversation_not_found',
  },
  {
    name: 'list runs',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/runs`,
    code: 'conversation_not_found',
  },
  {
    name: 'status panel',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/subagents`,
    code: 'conversation_not_found',
  },
  {
    name: 'list artifacts',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/artifacts`,
    code: 'conversation_not_found',
  },
  {
    name: 'download an artifact',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/artifacts/${mine.artifactId}/download`,
    code: 'conversation_not_found',
  },
  {
    name: 'download a foreign artifact through my own conversation',
    method: 'GET',
    url: ({ mine, bobsConversation }) =>
      `/api/conversations/${bobsConversation.id}/artifacts/${mine.artifactId}/download`,
    code: 'artifact_not_found',
  },
  {
    name: 'attach a file',
    method: 'POST',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/attachments`,
    body: () => multipartFile('planted.txt', 'planted'),
    headers: { 'Content-Type': MULTIPART },
    code: 'conversation_not_found',
  },
  {
    name: 'list attachments',
    method: 'GET',
    url: ({ mine }) => `/api/conversations/${mine.conversation.id}/attachments`,
    code: 'conversation_not_found',
  },
  {
    name: 'send a foreign attachment in my own conversation',
    method: 'POST',
    url: ({ bobsConversation }) => `/api/conversations/${bobsConversation.id}/messages`,
    body: ({ mine }) => ({ content: 'read this', attachments: [mine.attachmentId] }),
    code: 'attachment_not_found',
  },
];
