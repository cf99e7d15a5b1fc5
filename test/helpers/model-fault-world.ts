import { DEFAULT_LIMITS } from '../../src/run-limits.js';
import { DEFAULT_MODEL_CALL_SETTINGS, type ModelCallSettings } from '../../src/model-call-settings.js';
import type { RunEvent } from '../../src/core/records/run-event.js';
import { startFakeAnthropicServer } from './models/fake-anthropic-server.js';
import type { FakeModelResponse, FakeModelServer, RecordedRequest } from './models/fake-model-server.js';
import { startFakeOpenAiServer } from './models/fake-openai-server.js';
import { roleOf, turnOf } from './role-model.js';
import { startTestServer, type TestServer } from './start-test-server.js';

export interface RunView {
  id: string;
  status: string;
  output: string | null;
  error: { type: string; message: string } | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    model_calls: number;
    by_model?: Record<string, unknown>;
  } | null;
}

/** Answers a request of a role once its scripted replies ran out. */
export type Otherwise = (request: RecordedRequest, turn: number) => FakeModelResponse;

/**
 * A real Troupe server whose agents talk to a fake OpenAI and a fake Anthropic server on loopback through
 * the real provider adapters. Each test agent's system prompt names its role (`ROLE:<slug>`); a test
 * scripts, per role, the replies (errors and faults included) its requests get in order.
 */
export interface ModelFaultWorld {
  server: TestServer;
  openai: FakeModelServer;
  anthropic: FakeModelServer;
  script(role: string, replies: FakeModelResponse[], otherwise?: Otherwise): void;
  /** An agent named `slug`, playing role `slug`; `config` goes over `{model: 'openai:gpt-test'}`. */
  createAgent(slug: string, config?: Record<string, unknown>): Promise<void>;
  chat(slug: string, message?: string): Promise<{ runId: string; conversationId: string }>;
  awaitRun(runId: string): Promise<RunView>;
  /** The run's stored events, as its SSE stream carries them. */
  events(runId: string): Promise<RunEvent[]>;
  /** Polls the run's events until one satisfies `found`. */
  waitForEvent(runId: string, found: (event: RunEvent) => boolean, timeoutMs?: number): Promise<RunEvent>;
  /** Requests the fakes received for a role (both providers, in arrival order). */
  requestsOf(role: string): RecordedRequest[];
  close(): Promise<void>;
}

/** The role of a request on either wire: OpenAI carries the system prompt as a message, Anthropic beside them. */
function roleOfAny(request: RecordedRequest): string {
  const role = roleOf(request);
  if (role !== 'unknown') return role;
  const system = JSON.stringify(request.body.system ?? '');
  return /ROLE:(\w+)/.exec(system)?.[1] ?? 'unknown';
}

export async function startModelFaultWorld(
  settings: Partial<ModelCallSettings> = {},
): Promise<ModelFaultWorld> {
  const scripts = new Map<string, { replies: FakeModelResponse[]; otherwise: Otherwise }>();
  const respond = (request: RecordedRequest): FakeModelResponse => {
    const entry = scripts.get(roleOfAny(request));
    if (!entry) return { text: 'ok' };
    return entry.replies.shift() ?? entry.otherwise(request, turnOf(request));
  };
  const openai = await startFakeOpenAiServer({ responses: respond });
  const anthropic = await startFakeAnthropicServer({ responses: respond });
  const server = await startTestServer({
    openaiBaseUrl: openai.baseURL,
    openaiApiKey: 'sk-test',
    anthropicBaseUrl: anthropic.baseURL,
    anthropicApiKey: 'ak-test',
    // The OpenAI fake again, under provider keys of their own (`openai-compatible:NAME:…`): tests that pause
    // a provider for long, or limit it, use one each, so no other test's calls wait with theirs.
    openaiCompatible: Object.fromEntries(
      ['aside', 'paused', 'hurried'].map((name) => [name, { baseURL: openai.baseURL, apiKey: `sk-${name}` }]),
    ),
    limits: { ...DEFAULT_LIMITS, maxActiveChildrenPerRun: 40, maxActiveChildrenPerUser: 200 },
    modelCalls: { ...DEFAULT_MODEL_CALL_SETTINGS, retryBaseMs: 20, idleTimeoutMs: 1000, ...settings },
  });

  async function json<T>(response: Response): Promise<T> {
    const body = (await response.json()) as T;
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
    return body;
  }

  // Read straight from storage: the SSE route streams until `end`, and tests look while a run waits.
  const events = (runId: string) => server.troupe.storage.events.list(runId, 0, 10_000);

  return {
    server,
    openai,
    anthropic,
    script(role, replies, otherwise = () => ({ text: `${role} is done` })) {
      scripts.set(role, { replies: [...replies], otherwise });
    },
    async createAgent(slug, config = {}) {
      await json(
        await server.api('/api/agent', {
          method: 'POST',
          body: JSON.stringify({
            slug,
            name: slug,
            description: `The ${slug}`,
            config: { model: 'openai:gpt-test', system_prompt: `ROLE:${slug}`, ...config },
          }),
        }),
      );
    },
    async chat(slug, message = 'Go') {
      const { runId, conversationId } = await server.chat(message, await agentId(slug));
      return { runId, conversationId };
    },
    async awaitRun(runId) {
      return (
        await json<{ run: RunView }>(await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`))
      ).run;
    },
    events,
    async waitForEvent(runId, found, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const event = (await events(runId)).find(found);
        if (event) return event;
        if (Date.now() > until) throw new Error(`run ${runId}: no such event within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    requestsOf(role) {
      return [...openai.requests, ...anthropic.requests]
        .filter((request) => roleOfAny(request) === role)
        .sort((a, b) => a.at - b.at);
    },
    async close() {
      await server.close();
      await Promise.all([openai.close(), anthropic.close()]);
    },
  };

  async function agentId(slug: string): Promise<string> {
    const { agents } = await json<{ agents: { id: string; slug: string }[] }>(
      await server.api('/api/agent?include_subagents=true'),
    );
    const agent = agents.find((candidate) => candidate.slug === slug);
    if (!agent) throw new Error(`no agent ${slug}`);
    return agent.id;
  }
}
