import { rootRequire } from './root-require.js';
import { HELPER_DESCRIPTION, HELPER_PROMPT, MAIN_PROMPT } from './cost-model.js';

/**
 * deepagents for the cost suite: the same agents as bench/lib/deepagents.ts (a main agent with one `helper`
 * subagent), but both models are LangChain's ChatOpenAI sending real Chat Completions requests to the
 * suite's fake server, so the tokens each request carries are counted on the wire like Troupe's. Conversations
 * keep their thread in a MemorySaver. Packages come from bench/node_modules, loaded by computed specifiers
 * (the root typecheck never depends on them).
 */
interface LcMessage {
  content: unknown;
}
interface DeepAgent {
  invoke(
    input: { messages: { role: string; content: string }[] },
    config: { configurable: { thread_id: string }; recursionLimit?: number },
  ): Promise<{ messages: LcMessage[] }>;
}

const load = async <T>(specifier: string): Promise<T> => (await import(specifier)) as T;

export interface DeepAgentsCostSide {
  version: string;
  /** One user turn on `threadId` (a new one starts a conversation); resolves with the final answer. */
  turn(input: string, threadId: string): Promise<string>;
}

export async function createDeepAgentsCostSide(baseURL: string): Promise<DeepAgentsCostSide> {
  const [deepagents, openai, langgraph] = await Promise.all([
    load<{ createDeepAgent(params: Record<string, unknown>): DeepAgent }>('deepagents'),
    load<{ ChatOpenAI: new (fields: Record<string, unknown>) => object }>('@langchain/openai'),
    load<{ MemorySaver: new () => object }>('@langchain/langgraph'),
  ]);
  const model = () =>
    new openai.ChatOpenAI({
      model: 'gpt-bench',
      apiKey: 'sk-bench',
      configuration: { baseURL },
      maxRetries: 0,
    });
  const agent = deepagents.createDeepAgent({
    model: model(),
    systemPrompt: MAIN_PROMPT,
    subagents: [
      { name: 'helper', description: HELPER_DESCRIPTION, systemPrompt: HELPER_PROMPT, model: model() },
    ],
    checkpointer: new langgraph.MemorySaver(),
  });
  const version = (rootRequire('./bench/node_modules/deepagents/package.json') as { version: string })
    .version;
  return {
    version,
    async turn(input, threadId) {
      const result = await agent.invoke(
        { messages: [{ role: 'user', content: input }] },
        { configurable: { thread_id: threadId } },
      );
      const last = result.messages.at(-1);
      return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
    },
  };
}
