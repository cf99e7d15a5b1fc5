import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { json } from '../../test/helpers/http/expect-error.js';
import {
  say,
  upload,
  useConversationFileSetup,
  type ConversationFileSetup,
} from '../../test/helpers/http/use-conversation-file-setup.js';
import { readSseFrames } from '../../test/helpers/read-sse-frames.js';

/**
 * Real answers checked against `/api/openapi.json` itself (not the zod schemas it is made from), as a
 * client generated from the document reads them: every object there is closed, so a field a handler sends
 * and the document does not name fails here. SSE frames are checked against the route's `x-event-schema`,
 * downloads' content types against the documented ones.
 */
interface MediaType {
  schema?: unknown;
  'x-event-schema'?: unknown;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

const setup = useConversationFileSetup();

/** The document's schemas as `$defs` of one JSON Schema, which zod reads back into a validator. */
function validatorFor(document: Document, schema: unknown): z.ZodType {
  const rewritten = JSON.parse(
    JSON.stringify({ $defs: document.components.schemas, ...(schema as object) }).replaceAll(
      '"#/components/schemas/',
      '"#/$defs/',
    ),
  ) as Record<string, unknown>;
  return z.fromJSONSchema(rewritten);
}

function operationOf(document: Document, method: string, route: string): Operation {
  const operation = document.paths[route]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${route} is not in the document`);
  return operation;
}

function successMedia(
  document: Document,
  method: string,
  route: string,
  status: number,
): Record<string, MediaType> {
  const content = operationOf(document, method, route).responses[String(status)]?.content;
  if (!content) throw new Error(`${method} ${route} documents no ${status} body`);
  return content;
}

/** Issues of a body against the documented JSON schema of its route and status (empty when it conforms). */
function problems(
  document: Document,
  method: string,
  route: string,
  status: number,
  body: unknown,
): string[] {
  const schema = successMedia(document, method, route, status)['application/json']?.schema;
  const result = validatorFor(document, schema).safeParse(body);
  return result.success ? [] : [`${method} ${route}: ${z.prettifyError(result.error)}`];
}

/** Issues of each `data:` frame of an SSE answer against the route's documented event schema. */
async function streamProblems(document: Document, method: string, route: string, response: Response) {
  const media = successMedia(document, method, route, response.status)['text/event-stream'];
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const validator = validatorFor(document, media?.['x-event-schema']);
  const found: string[] = [];
  let frames = 0;
  await readSseFrames(response.body as ReadableStream<Uint8Array>, (batch) => {
    for (const frame of batch) {
      if (frame.data === '[DONE]') continue;
      frames += 1;
      const result = validator.safeParse(JSON.parse(frame.data));
      if (!result.success) found.push(`${method} ${route} frame: ${z.prettifyError(result.error)}`);
    }
  });
  expect(frames).toBeGreaterThan(0);
  return found;
}

async function publishMain(s: ConversationFileSetup): Promise<void> {
  await s.ctx.agents.update(s.alice.user, 'main', { status: 'published', visibility: 'public' });
}

describe('real responses against the OpenAPI document (closed schemas)', () => {
  it('the API routes answer only fields the document names', async () => {
    const s = await setup();
    const token = s.alice.token;
    const document = await json<Document>(await s.ctx.request('GET', '/api/openapi.json'), 200);
    await json(await upload(s, token, [['file', new Blob(['notes']), 'notes.txt']]), 201);
    await say(s, 'write the report');
    const research = await say(s, 'research the upload');
    const samples: [string, string, string][] = [
      ['GET', '/api/health', '/api/health'],
      ['GET', '/api/me', '/api/me'],
      ['GET', '/api/me/tokens', '/api/me/tokens'],
      ['GET', '/api/agent', '/api/agent'],
      ['GET', '/api/agent/{id}', '/api/agent/main'],
      ['GET', '/api/projects', '/api/projects'],
      ['GET', '/api/conversations', '/api/conversations'],
      ['GET', '/api/conversations/{id}', `/api/conversations/${s.conversation.id}`],
      ['GET', '/api/conversations/{id}/messages', `/api/conversations/${s.conversation.id}/messages`],
      ['GET', '/api/conversations/{id}/artifacts', `/api/conversations/${s.conversation.id}/artifacts`],
      ['GET', '/api/conversations/{id}/attachments', `/api/conversations/${s.conversation.id}/attachments`],
      ['GET', '/api/agent/runs', '/api/agent/runs'],
      ['GET', '/api/conversations/{id}/runs', `/api/conversations/${s.conversation.id}/runs`],
      ['GET', '/api/conversations/{id}/subagents', `/api/conversations/${s.conversation.id}/subagents`],
      ['GET', '/api/agent/runs/{id}/result', `/api/agent/runs/${research.id}/result`],
      ['GET', '/api/agent/{id}/build-report', '/api/agent/main/build-report'],
      ['GET', '/api/knowledge', '/api/knowledge'],
      ['GET', '/api/skills', '/api/skills'],
      ['GET', '/api/agent/runs/{id}', `/api/agent/runs/${research.id}`],
      ['GET', '/api/agent/runs/{id}/tree', `/api/agent/runs/${research.id}/tree`],
      ['GET', '/api/agent/runs/{id}/evidence', `/api/agent/runs/${research.id}/evidence`],
      ['GET', '/api/agent/runs/{id}/trace', `/api/agent/runs/${research.id}/trace`],
      [
        'GET',
        '/api/agent/runs/{id}/compare/{other_id}',
        `/api/agent/runs/${research.id}/compare/${research.id}`,
      ],
      ['GET', '/api/me/delegation-policy', '/api/me/delegation-policy'],
      ['GET', '/v1/models', '/v1/models'],
    ];
    const found: string[] = [];
    for (const [method, route, url] of samples) {
      const response = await s.ctx.request(method, url, { token });
      expect(response.status, `${method} ${url}`).toBe(200);
      found.push(...problems(document, method, route, 200, await response.json()));
    }
    const admin = await s.ctx.request('GET', '/api/users', { token: s.admin.token });
    found.push(...problems(document, 'GET', '/api/users', 200, await admin.json()));
    // Knowledge: a source, an upload, a grant, a search.
    const created = await s.ctx.request('POST', '/api/knowledge', {
      token,
      body: { name: 'notes', visibility: 'shared' },
    });
    found.push(...problems(document, 'POST', '/api/knowledge', 201, await created.clone().json()));
    const source = ((await created.json()) as { source: { id: string } }).source.id;
    const documents = await s.ctx.app.request(`/api/knowledge/${source}/documents?filename=a.md`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/markdown' },
      body: '# Notes\n\nQuarterly numbers went up.',
    });
    found.push(...problems(document, 'POST', '/api/knowledge/{id}/documents', 201, await documents.json()));
    for (const [method, route, status, body] of [
      ['POST', '/api/knowledge/{id}/grants', 201, { user_id: s.bob.user.id }],
      ['GET', '/api/knowledge/{id}/grants', 200, undefined],
      ['GET', '/api/knowledge/{id}/documents', 200, undefined],
      ['POST', '/api/knowledge/{id}/search', 200, { query: 'quarterly numbers' }],
    ] as const) {
      const response = await s.ctx.request(method, route.replace('{id}', source), { token, body });
      expect(response.status, `${method} ${route}`).toBe(status);
      found.push(...problems(document, method, route, status, await response.json()));
    }
    expect(found).toEqual([]);

    // The check has teeth: one field the document does not name is refused.
    const run = await json<{ run: Record<string, unknown> }>(
      await s.ctx.request('GET', `/api/agent/runs/${research.id}`, { token }),
      200,
    );
    expect(problems(document, 'GET', '/api/agent/runs/{id}', 200, run)).toEqual([]);
    const extra = { run: { ...run.run, started_by: 'nobody' } };
    expect(problems(document, 'GET', '/api/agent/runs/{id}', 200, extra).join()).toContain('started_by');
  });

  it('a download answers one of its documented content types', async () => {
    const s = await setup();
    const document = await json<Document>(await s.ctx.request('GET', '/api/openapi.json'), 200);
    await say(s, 'write the report');
    const { artifacts } = await json<{ artifacts: { id: string }[] }>(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/artifacts`, {
        token: s.alice.token,
      }),
      200,
    );
    const route = '/api/conversations/{id}/artifacts/{artifact_id}/download';
    const response = await s.ctx.request(
      'GET',
      `/api/conversations/${s.conversation.id}/artifacts/${artifacts[0]?.id}/download`,
      { token: s.alice.token },
    );
    expect(response.status).toBe(200);
    expect(Object.keys(successMedia(document, 'GET', route, 200))).toContain(
      response.headers.get('content-type'),
    );
  });

  it('the OpenAI-compatible and A2A answers, JSON and SSE, match their documented schemas', async () => {
    const s = await setup();
    await publishMain(s);
    const token = s.alice.token;
    const document = await json<Document>(await s.ctx.request('GET', '/api/openapi.json'), 200);
    const found: string[] = [];
    const completion = { model: 'main', messages: [{ role: 'user', content: 'hello' }] };
    const answer = await s.ctx.request('POST', '/v1/chat/completions', { token, body: completion });
    found.push(...problems(document, 'POST', '/v1/chat/completions', 200, await answer.json()));
    const streamed = await s.ctx.request('POST', '/v1/chat/completions', {
      token,
      body: { ...completion, stream: true, stream_options: { include_usage: true } },
    });
    found.push(...(await streamProblems(document, 'POST', '/v1/chat/completions', streamed)));

    const cardRoute = '/a2a/{id}/.well-known/agent-card.json';
    const card = await s.ctx.request('GET', '/a2a/main/.well-known/agent-card.json');
    found.push(...problems(document, 'GET', cardRoute, 200, await card.json()));
    const serverCard = await s.ctx.request('GET', '/.well-known/agent-card.json');
    found.push(...problems(document, 'GET', '/.well-known/agent-card.json', 200, await serverCard.json()));

    let seq = 0;
    const rpc = async (method: string, params: unknown, version = '1.0') => {
      seq += 1;
      return s.ctx.request('POST', '/a2a/main', {
        token,
        headers: { 'A2A-Version': version },
        body: { jsonrpc: '2.0', id: seq, method, params },
      });
    };
    const message = (messageId: string) => ({
      message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    });
    const sent = (await (await rpc('SendMessage', message('m-1'))).json()) as {
      result: { task: { id: string } };
    };
    found.push(...problems(document, 'POST', '/a2a/{id}', 200, sent));
    const taskId = sent.result.task.id;
    for (const [method, params] of [
      ['GetTask', { id: taskId }],
      ['ListTasks', { includeArtifacts: true }],
      ['GetExtendedAgentCard', {}],
      ['GetTask', { id: 'no-such-task' }],
    ] as const) {
      found.push(...problems(document, 'POST', '/a2a/{id}', 200, await (await rpc(method, params)).json()));
    }
    const legacy = await rpc(
      'message/send',
      { message: { kind: 'message', messageId: 'm-2', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
      '0.3',
    );
    found.push(...problems(document, 'POST', '/a2a/{id}', 200, await legacy.json()));
    const stream = await rpc('SendStreamingMessage', message('m-3'));
    found.push(...(await streamProblems(document, 'POST', '/a2a/{id}', stream)));
    expect(found).toEqual([]);
  });
});
