import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelResponse, RecordedRequest } from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer, type FakeModelServer } from '../helpers/models/fake-openai-server.js';
import { roleOf, turnOf } from '../helpers/role-model.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * Prompt caching on `openai-compatible` endpoints over real HTTP (docs/model-calls.md#prompt-caching): the
 * real adapter reads cache hits as vLLM reports them (`prompt_tokens_details.cached_tokens`) and as DeepSeek
 * does (`prompt_cache_hit_tokens`), and sends the thread's `prompt_cache_key` only to an endpoint that opted in.
 */
let server: TestServer;
let vllm: FakeModelServer;
let deepseek: FakeModelServer;

/** Two tool steps, then the answer, for every role. */
const respond = (request: RecordedRequest): FakeModelResponse =>
  turnOf(request) < 2 ? { toolCalls: [{ name: 'ls', args: {} }] } : { text: `${roleOf(request)} done` };

beforeAll(async () => {
  vllm = await startFakeOpenAiServer({ responses: respond });
  deepseek = await startFakeOpenAiServer({ responses: respond, dialect: 'deepseek' });
  server = await startTestServer({
    openaiCompatible: {
      keyed: { baseURL: vllm.baseURL, apiKey: 'sk-keyed', promptCacheKey: true },
      plain: { baseURL: vllm.baseURL, apiKey: 'sk-plain' },
      deepseek: { baseURL: deepseek.baseURL, apiKey: 'sk-deepseek' },
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([vllm?.close(), deepseek?.close()]);
});

interface RunUsage {
  input_tokens: number;
  cache_read_tokens?: number;
}

/** A three-step run of a fresh agent on `model`, with a system prompt over the fakes' caching minimum. */
async function threeSteps(slug: string, model: string) {
  const created = await server.api('/api/agent', {
    method: 'POST',
    body: JSON.stringify({
      slug,
      name: slug,
      description: `The ${slug}`,
      config: {
        model,
        tools: ['ls'],
        system_prompt: `ROLE:${slug}\n${'Background the model keeps in mind. '.repeat(200)}`,
      },
    }),
  });
  expect(created.status).toBe(201);
  const { agent } = (await created.json()) as { agent: { id: string } };
  const { runId } = await server.chat('List the files.', agent.id);
  const awaited = await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`);
  const { run } = (await awaited.json()) as { run: { status: string; usage: RunUsage | null } };
  const requests = [...vllm.requests, ...deepseek.requests].filter((request) => roleOf(request) === slug);
  return { run, requests };
}

describe('openai-compatible prompt caching', () => {
  it('sends one prompt_cache_key per thread to an endpoint that opted in, and records its cached tokens', async () => {
    const { run, requests } = await threeSteps('keyed', 'openai-compatible:keyed:qwen3');
    expect(run.status).toBe('completed');
    expect(requests).toHaveLength(3);
    const keys = new Set(requests.map((request) => request.body.prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toEqual(expect.any(String));
    expect(run.usage?.cache_read_tokens).toBeGreaterThan(0);
    expect(run.usage?.cache_read_tokens ?? 0).toBeLessThan(run.usage?.input_tokens ?? 0);
  });

  it('sends no prompt_cache_key to an endpoint that did not opt in', async () => {
    const { run, requests } = await threeSteps('plain', 'openai-compatible:plain:qwen3');
    expect(run.status).toBe('completed');
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(request.body).not.toHaveProperty('prompt_cache_key');
    expect(run.usage?.cache_read_tokens).toBeUndefined();
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cache reads", async () => {
    const { run, requests } = await threeSteps('seek', 'openai-compatible:deepseek:deepseek-chat');
    expect(run.status).toBe('completed');
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(request.body).not.toHaveProperty('prompt_cache_key');
    expect(run.usage?.cache_read_tokens).toBeGreaterThan(0);
    expect(run.usage?.cache_read_tokens ?? 0).toBeLessThan(run.usage?.input_tokens ?? 0);
  });
});
