import type { ModelProviderOptions } from '../../src/adapters/models/create-model-provider.js';
import { startFakeAnthropicServer } from './models/fake-anthropic-server.js';
import type { FakeModelResponse, FakeModelServer, RecordedRequest } from './models/fake-model-server.js';
import { startFakeOpenAiServer } from './models/fake-openai-server.js';

/** One model turn of a backend-neutral script (the scenario format of `scenarios/README.md`). */
export interface ScriptTurn {
  text?: string;
  tool_calls?: { name: string; args?: Record<string, unknown>; unoffered?: boolean }[];
}

export interface ScriptRule {
  when?: { contains?: string; matches?: string };
  steps: ScriptTurn[];
}

/** A model playing a script: the scripted provider, or a fake OpenAI / Anthropic server over real HTTP. */
export interface ScriptedBackend {
  /** The model spec to put in an agent's config. */
  spec: string;
  /** Scenario files to hand to the runtime harness (empty for the fake servers). */
  scenarios: Record<string, string>;
  /** Model provider settings for the harness. */
  models: Partial<Omit<ModelProviderOptions, 'scenarioDir'>>;
  /** Requests the fake server received (empty for the scripted provider). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type BackendName = 'scripted' | 'openai' | 'anthropic';
export const BACKENDS: readonly BackendName[] = ['scripted', 'openai', 'anthropic'];

interface PromptFacts {
  input: string;
  /** Assistant turns since the last user text: which step of the rule to play. */
  step: number;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: unknown) => {
    const block = part as { type?: unknown; text?: unknown };
    return block.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
  });
  return texts.length > 0 ? texts.join('') : undefined;
}

/** Reads either wire format: the last user message with text, and the assistant turns after it. */
function readFacts(request: RecordedRequest): PromptFacts {
  const messages = (Array.isArray(request.body.messages) ? request.body.messages : []) as {
    role?: unknown;
    content?: unknown;
  }[];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    const text = message?.role === 'user' ? textOf(message.content) : undefined;
    if (text === undefined) continue;
    const step = messages.slice(index + 1).filter((later) => later.role === 'assistant').length;
    return { input: text, step };
  }
  return { input: '', step: 0 };
}

function render(value: unknown, input: string): unknown {
  if (typeof value === 'string') return value.replace(/\{\{\s*input\s*\}\}/g, input);
  if (Array.isArray(value)) return value.map((item) => render(item, input));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item, input)]));
  }
  return value;
}

/** Plays `rules` the way the scripted provider does, for a fake server's requests. */
export function scriptResponder(
  rules: readonly ScriptRule[],
): (request: RecordedRequest) => FakeModelResponse {
  return (request) => {
    const facts = readFacts(request);
    const rule =
      rules.find(
        (candidate) =>
          candidate.when !== undefined &&
          (candidate.when.contains === undefined ||
            facts.input.toLowerCase().includes(candidate.when.contains.toLowerCase())) &&
          (candidate.when.matches === undefined || new RegExp(candidate.when.matches).test(facts.input)),
      ) ?? rules.find((candidate) => candidate.when === undefined);
    const turn = rule?.steps[facts.step];
    if (!rule || !turn)
      return { text: String(render(rule?.steps.at(-1)?.text ?? '(finished)', facts.input)) };
    return {
      ...(turn.text !== undefined ? { text: String(render(turn.text, facts.input)) } : {}),
      ...(turn.tool_calls
        ? {
            toolCalls: turn.tool_calls.map((call) => ({
              name: call.name,
              args: render(call.args ?? {}, facts.input) as Record<string, unknown>,
            })),
          }
        : {}),
    };
  };
}

function fromServer(
  spec: string,
  server: FakeModelServer,
  models: ScriptedBackend['models'],
): ScriptedBackend {
  return { spec, scenarios: {}, models, requests: server.requests, close: () => server.close() };
}

/** Starts `backend` playing `rules` as the model of the agent under test (`scenario`: its scripted name). */
export async function startBackend(
  backend: BackendName,
  rules: readonly ScriptRule[],
  scenario = 'main',
): Promise<ScriptedBackend> {
  const responses = scriptResponder(rules);
  switch (backend) {
    case 'scripted':
      // JSON is YAML: the scenario file is the script itself.
      return {
        spec: `scripted:${scenario}`,
        scenarios: { [scenario]: JSON.stringify({ rules }) },
        models: {},
        requests: [],
        close: () => Promise.resolve(),
      };
    case 'openai': {
      const server = await startFakeOpenAiServer({ responses });
      return fromServer('openai:gpt-test', server, {
        openaiBaseUrl: server.baseURL,
        openaiApiKey: 'sk-test',
      });
    }
    case 'anthropic': {
      const server = await startFakeAnthropicServer({ responses });
      return fromServer('anthropic:claude-test', server, {
        anthropicBaseUrl: server.baseURL,
        anthropicApiKey: 'ak-test',
      });
    }
  }
}
