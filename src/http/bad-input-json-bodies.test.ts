import { describe, expect, it } from 'vitest';
import { expectError } from '../../test/helpers/http/expect-error.js';
import {
  MAX_BODY_BYTES,
  useBadInputContext,
  type BadInputIds,
} from '../../test/helpers/http/use-bad-input-context.js';

const input = useBadInputContext();

interface BodyRoute {
  method: string;
  /** OpenAPI path, as listed in /api/openapi.json. */
  path: string;
  url: (ids: BadInputIds) => string;
  /** A body with a field of the wrong type. */
  wrongTypes: Record<string, unknown>;
  /** A minimal valid body, used to build the unknown-field and oversize cases. */
  valid: Record<string, unknown>;
  /** A protocol's own body that is open to fields it adds (AG-UI's RunAgentInput): no unknown-field case. */
  open?: true;
}

// Every body route, each with an admin token so that only the body can be at fault.
const BODY_ROUTES: BodyRoute[] = [
  {
    method: 'POST',
    path: '/api/me/tokens',
    url: () => '/api/me/tokens',
    wrongTypes: { name: 5 },
    valid: { name: 'x' },
  },
  {
    method: 'POST',
    path: '/api/users',
    url: () => '/api/users',
    wrongTypes: { name: 'eve', role: 'god' },
    valid: { name: 'eve' },
  },
  {
    method: 'POST',
    path: '/api/agent',
    url: () => '/api/agent',
    wrongTypes: { name: 42 },
    valid: { name: 'New', slug: 'new-agent' },
  },
  {
    method: 'POST',
    path: '/api/agent/build-report',
    url: () => '/api/agent/build-report',
    wrongTypes: { config: { tools: 'read_file' } },
    valid: { config: {} },
  },
  {
    method: 'PUT',
    path: '/api/agent/{id}',
    url: (ids) => `/api/agent/${ids.agent}`,
    wrongTypes: { delegatable: 'yes' },
    valid: { name: 'Renamed' },
  },
  {
    method: 'POST',
    path: '/api/projects',
    url: () => '/api/projects',
    wrongTypes: { name: [] },
    valid: { name: 'P' },
  },
  {
    method: 'POST',
    path: '/api/conversations',
    url: () => '/api/conversations',
    wrongTypes: { agent_id: 1 },
    valid: { agent_id: 'main' },
  },
  {
    method: 'PATCH',
    path: '/api/conversations/{id}',
    url: (ids) => `/api/conversations/${ids.conversation}`,
    wrongTypes: { status: 'subagent' },
    valid: { title: 'T' },
  },
  {
    method: 'POST',
    path: '/api/conversations/{id}/messages',
    url: (ids) => `/api/conversations/${ids.conversation}/messages`,
    wrongTypes: { content: 7 },
    valid: { content: 'hi' },
  },
  {
    method: 'POST',
    path: '/api/agent/runs/{id}/approvals/{tool_call_id}',
    url: () => '/api/agent/runs/no-such-run/approvals/call-1',
    wrongTypes: { decision: 'maybe' },
    valid: { decision: 'approve' },
  },
  {
    method: 'POST',
    path: '/api/agent/{id}/grants',
    url: (ids) => `/api/agent/${ids.agent}/grants`,
    wrongTypes: { user_id: 7, source: 'stolen' },
    valid: { user_id: 'usr_someone' },
  },
  {
    method: 'PUT',
    path: '/api/me/delegation-policy',
    url: () => '/api/me/delegation-policy',
    wrongTypes: { policy: 'some', whitelist: 'analyst' },
    valid: { policy: 'all' },
  },
  {
    method: 'POST',
    path: '/api/delegate',
    url: () => '/api/delegate',
    wrongTypes: { expert: 5, task: [] },
    valid: { expert: 'main', task: 'x' },
  },
  // Its JSON form (from a workdir folder); archives are raw bodies, covered in skill-routes.test.ts.
  {
    method: 'POST',
    path: '/api/skills',
    url: () => '/api/skills',
    wrongTypes: { from_workdir: 'notes', replace: 'yes' },
    valid: { from_workdir: { project_id: 'prj_missing', path: 'skill' } },
  },
  {
    method: 'PATCH',
    path: '/api/skills/{id}',
    url: () => '/api/skills/some-skill',
    wrongTypes: { visibility: 'everyone' },
    valid: { visibility: 'public' },
  },
  {
    method: 'POST',
    path: '/api/skills/{id}/grants',
    url: () => '/api/skills/some-skill/grants',
    wrongTypes: { user_id: 7 },
    valid: { user_id: 'usr_someone' },
  },
  {
    method: 'POST',
    path: '/api/knowledge',
    url: () => '/api/knowledge',
    wrongTypes: { name: 5, visibility: 'everyone' },
    valid: { name: 'kb-new' },
  },
  {
    method: 'PUT',
    path: '/api/knowledge/{id}',
    url: (ids) => `/api/knowledge/${ids.source}`,
    wrongTypes: { visibility: 'everyone' },
    valid: { description: 'd' },
  },
  {
    method: 'POST',
    path: '/api/knowledge/{id}/search',
    url: (ids) => `/api/knowledge/${ids.source}/search`,
    wrongTypes: { query: 5, top_k: 'many' },
    valid: { query: 'x' },
  },
  {
    method: 'POST',
    path: '/api/knowledge/{id}/grants',
    url: (ids) => `/api/knowledge/${ids.source}/grants`,
    wrongTypes: { user_id: 7, source: 'stolen' },
    valid: { user_id: 'usr_someone' },
  },
  {
    method: 'POST',
    path: '/api/agent/runs/{id}/answers/{tool_call_id}',
    url: () => '/api/agent/runs/no-such-run/answers/call-1',
    wrongTypes: { answers: 'blue' },
    valid: { answers: ['blue'] },
  },
  {
    method: 'POST',
    path: '/api/agent/runs/{id}/fork',
    url: () => '/api/agent/runs/no-such-run/fork',
    wrongTypes: { after_step: 'two', input: 5, agent_overrides: { tools: 'read_file' } },
    valid: { input: 'again' },
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    url: () => '/v1/chat/completions',
    wrongTypes: { model: 5, messages: 'hi' },
    valid: { model: 'main', messages: [{ role: 'user', content: 'hi' }] },
  },
  {
    method: 'POST',
    path: '/v1/agents',
    url: () => '/v1/agents',
    wrongTypes: { model: 5 },
    valid: { model: 'scripted:demo' },
  },
  {
    method: 'POST',
    path: '/v1/agents/{id}',
    url: (ids) => `/v1/agents/${ids.agent}`,
    wrongTypes: { model: 5 },
    valid: { model: 'scripted:demo' },
  },
  {
    method: 'POST',
    path: '/v1/agents/sessions',
    url: () => '/v1/agents/sessions',
    wrongTypes: { agent_id: 5 },
    valid: { agent_id: 'assistant' },
  },
  {
    method: 'POST',
    path: '/v1/agents/sessions/{id}',
    url: (ids) => `/v1/agents/sessions/${ids.conversation}`,
    wrongTypes: { metadata: 5 },
    valid: { metadata: { topic: 'x' } },
  },
  {
    method: 'POST',
    path: '/v1/agents/sessions/{id}/events',
    url: (ids) => `/v1/agents/sessions/${ids.conversation}/events`,
    wrongTypes: { events: 'hi' },
    valid: { events: [{ type: 'agent.session.input.cancel' }] },
  },
  {
    method: 'POST',
    path: '/ag-ui/{id}',
    url: (ids) => `/ag-ui/${ids.agent}`,
    wrongTypes: { threadId: 5, runId: [], messages: 'hi' },
    valid: { threadId: 't-1', runId: 'r-1', messages: [{ id: 'm-1', role: 'user', content: 'hi' }] },
    open: true,
  },
];

describe('bad input on every body route', () => {
  it('covers every route that takes a body in the OpenAPI document', async () => {
    const { ctx } = input();
    const document = (await (await ctx.request('GET', '/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
    };
    // JSON bodies; uploads (multipart or raw documents) have their own tests.
    const withBody = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.requestBody?.content?.['application/json'] !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(withBody.sort()).toEqual(BODY_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  describe.each(BODY_ROUTES)('$method $path', (route) => {
    async function send(body: string, headers: Record<string, string> = {}): Promise<Response> {
      const { ctx, admin, ids } = input();
      return ctx.request(route.method, route.url(ids), {
        token: admin.token,
        body,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
    }

    async function expectNothingPersisted(
      response: Promise<Response>,
      status: number,
      code: string,
    ): Promise<void> {
      const { ctx } = input();
      const before = ctx.countRows();
      const agentBefore = ctx.rawRows('agents');
      const conversationsBefore = ctx.rawRows('conversations');
      await expectError(await response, status, code);
      expect(ctx.countRows()).toEqual(before);
      expect(ctx.rawRows('agents')).toEqual(agentBefore);
      expect(ctx.rawRows('conversations')).toEqual(conversationsBefore);
    }

    it('malformed JSON ⇒ 400 invalid_json', async () => {
      await expectNothingPersisted(send('{"name": '), 400, 'invalid_json');
      await expectNothingPersisted(send(''), 400, 'invalid_json');
    });

    it.skipIf(route.open)('unknown field ⇒ 400 validation_failed naming the field', async () => {
      const response = send(JSON.stringify({ ...route.valid, surprise: true }));
      await expectNothingPersisted(response, 400, 'validation_failed');
      const again = await send(JSON.stringify({ ...route.valid, surprise: true }));
      const body = (await again.json()) as { error: { message: string; details?: { issues: unknown[] } } };
      expect(body.error.message).toContain('surprise');
      // OpenAI's error shape (the /v1 routes) has no details: the message is all it carries.
      if (!route.path.startsWith('/v1/')) expect(body.error.details?.issues.length).toBeGreaterThan(0);
    });

    it('wrong types ⇒ 400 validation_failed', async () => {
      await expectNothingPersisted(send(JSON.stringify(route.wrongTypes)), 400, 'validation_failed');
      await expectNothingPersisted(send('[1,2,3]'), 400, 'validation_failed');
      await expectNothingPersisted(send('"text"'), 400, 'validation_failed');
    });

    it('oversize body ⇒ 413 payload_too_large, declared or streamed', async () => {
      const big = JSON.stringify({ ...route.valid, padding: 'x'.repeat(MAX_BODY_BYTES) });
      await expectNothingPersisted(send(big), 413, 'payload_too_large');
      await expectNothingPersisted(
        send('{}', { 'Content-Length': String(MAX_BODY_BYTES + 1) }),
        413,
        'payload_too_large',
      );
    });

    it('wrong content type ⇒ 415 unsupported_media_type', async () => {
      await expectNothingPersisted(
        send(JSON.stringify(route.valid), { 'Content-Type': 'text/plain' }),
        415,
        'unsupported_media_type',
      );
      await expectNothingPersisted(
        send('name=x', { 'Content-Type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      );
    });
  });
});
