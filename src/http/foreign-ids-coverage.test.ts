import { describe, expect, it } from 'vitest';
import { AGENT_ATTEMPTS } from '../../test/helpers/http/foreign-ids/agent-attempts.js';
import {
  AGENTS_API_ATTEMPTS,
  FOREIGN_SUBAGENT_ID,
} from '../../test/helpers/http/foreign-ids/agents-api-attempts.js';
import { CONVERSATION_ATTEMPTS } from '../../test/helpers/http/foreign-ids/conversation-attempts.js';
import { KNOWLEDGE_ATTEMPTS } from '../../test/helpers/http/foreign-ids/knowledge-attempts.js';
import { PROTOCOL_ATTEMPTS } from '../../test/helpers/http/foreign-ids/protocol-attempts.js';
import { RUN_ATTEMPTS } from '../../test/helpers/http/foreign-ids/run-attempts.js';
import { SKILL_ATTEMPTS } from '../../test/helpers/http/foreign-ids/skill-attempts.js';
import { useForeignIdsWorld } from '../../test/helpers/http/foreign-ids/use-foreign-ids-world.js';

const world = useForeignIdsWorld();

/** Every attempt of the foreign-ids-*.test.ts files; each of those makes its own share of them. */
const ATTEMPTS = [
  ...AGENT_ATTEMPTS,
  ...CONVERSATION_ATTEMPTS,
  ...RUN_ATTEMPTS,
  ...SKILL_ATTEMPTS,
  ...KNOWLEDGE_ATTEMPTS,
  ...PROTOCOL_ATTEMPTS,
  ...AGENTS_API_ATTEMPTS,
];

describe("another member using the first member's ids", () => {
  it('tries every route that takes an id', async () => {
    const current = world();
    const { ctx, alice, mine, bobsConversation } = current;
    const document = (await (await ctx.request('GET', '/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const idRoutes = Object.entries(document.paths)
      .filter(([routePath]) => routePath.includes('{'))
      .flatMap(([routePath, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${routePath}`),
      );
    const ownIds = [
      mine.tokenId,
      mine.agent.id,
      mine.shared.id,
      mine.conversation.id,
      mine.runId,
      'main',
      mine.skill.id,
      mine.sharedSkill.id,
      'alices-skill',
      mine.sourceId,
      bobsConversation.id,
    ];
    const tried = ATTEMPTS.map((attempt) => {
      let url = attempt.url(current).split('?')[0] ?? '';
      url = url.replace(`/grants/${alice.user.id}`, '/grants/{user_id}');
      url = url.replace(`/documents/${mine.documentId}`, '/documents/{document_id}');
      url = url.replace(/\/compare\/[^/]+$/, '/compare/{other_id}');
      url = url.replace(`/turns/${mine.runId}`, '/turns/{turn_id}');
      url = url.replace(`/subagents/${FOREIGN_SUBAGENT_ID}`, '/subagents/{subagent_id}');
      url = url.replace(new RegExp(`/artifacts/${mine.artifactId}$`), '/artifacts/{artifact_id}');
      for (const id of ownIds) url = url.replace(`/${id}`, '/{id}');
      url = url.replace('/approvals/call-1', '/approvals/{tool_call_id}');
      url = url.replace('/answers/call-1', '/answers/{tool_call_id}');
      url = url.replace('/steps/1', '/steps/{step}');
      url = url.replace(`/artifacts/${mine.artifactId}/`, '/artifacts/{artifact_id}/');
      return `${attempt.method} ${url}`;
    });
    expect(idRoutes.filter((route) => !tried.includes(route))).toEqual([]);
  });
});
