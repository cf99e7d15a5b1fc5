import type BetterSqlite3 from 'better-sqlite3';
import { rootRequire } from './root-require.js';

/**
 * The deepagents (LangGraph) side of the dispatch benchmark. Its packages live in `bench/node_modules`
 * (bench/package.json) and are loaded with computed specifiers, so the root typecheck never depends on them:
 * the few shapes used here are declared locally.
 */

export type CheckpointerKind = 'none' | 'memory' | 'sqlite';

export interface DeepAgentsSide {
  readonly kind: CheckpointerKind;
  readonly version: string;
  /** One user turn on a fresh thread; resolves with the final answer. */
  invoke(input: string, threadId: string): Promise<string>;
  close(): void;
}

interface LcMessage {
  content: unknown;
  getType(): string;
}

type MessageClass = new (fields: { content: string; tool_calls?: unknown[] }) => LcMessage;

interface ChatResult {
  generations: { text: string; message: LcMessage }[];
}

type ChatModelBase = new (fields: Record<string, unknown>) => object;

interface DeepAgent {
  invoke(
    input: { messages: { role: string; content: string }[] },
    config: { configurable: { thread_id: string } },
  ): Promise<{ messages: LcMessage[] }>;
}

interface DeepAgentsModule {
  createDeepAgent(params: Record<string, unknown>): DeepAgent;
}

const load = async <T>(specifier: string): Promise<T> => (await import(specifier)) as T;

function textOf(message: LcMessage | undefined): string {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join('');
  }
  return '';
}

/**
 * A minimal BaseChatModel that plays the same script as Troupe's `scripted:` scenarios, decided from the
 * prompt alone (stateless, like the scripted provider): the main model answers a user message with one
 * `task` call and a tool result with text; the helper answers its task with text. Zero latency.
 */
function scriptedModelClass(Base: ChatModelBase, AIMessage: MessageClass) {
  return class ScriptedChatModel extends Base {
    calls = 0;

    constructor(readonly role: 'main' | 'helper') {
      super({});
    }

    _llmType(): string {
      return 'scripted';
    }

    bindTools(): this {
      return this;
    }

    _generate(messages: LcMessage[]): Promise<ChatResult> {
      this.calls += 1;
      const last = messages.at(-1);
      const lastText = textOf(last);
      let message: LcMessage;
      if (this.role === 'helper') {
        message = new AIMessage({ content: `Helper report on <${lastText}>` });
      } else if (last?.getType() === 'tool') {
        message = new AIMessage({ content: `Main got: ${lastText}` });
      } else if (lastText.includes('plain')) {
        message = new AIMessage({ content: `Plain answer to ${lastText}` });
      } else {
        message = new AIMessage({
          content: '',
          tool_calls: [
            {
              id: `call_${this.calls}`,
              name: 'task',
              args: { description: `Investigate: ${lastText}`, subagent_type: 'helper' },
              type: 'tool_call',
            },
          ],
        });
      }
      return Promise.resolve({ generations: [{ text: textOf(message), message }] });
    }
  };
}

export async function createDeepAgentsSide(
  kind: CheckpointerKind,
  sqlitePath?: string,
): Promise<DeepAgentsSide> {
  const [deepagents, chatModels, messages, langgraph] = await Promise.all([
    load<DeepAgentsModule>('deepagents'),
    load<{ BaseChatModel: ChatModelBase }>('@langchain/core/language_models/chat_models'),
    load<{ AIMessage: MessageClass }>('@langchain/core/messages'),
    load<{ MemorySaver: new () => object }>('@langchain/langgraph'),
  ]);
  const ScriptedChatModel = scriptedModelClass(chatModels.BaseChatModel, messages.AIMessage);
  let database: BetterSqlite3.Database | undefined;
  let checkpointer: object | undefined;
  if (kind === 'memory') checkpointer = new langgraph.MemorySaver();
  if (kind === 'sqlite') {
    if (!sqlitePath) throw new Error('the sqlite checkpointer needs a file path');
    const { SqliteSaver } = await load<{ SqliteSaver: new (db: BetterSqlite3.Database) => object }>(
      '@langchain/langgraph-checkpoint-sqlite',
    );
    // The server's compiled better-sqlite3, with the same pragmas as Troupe's store (WAL, synchronous=NORMAL).
    const Database = rootRequire('better-sqlite3') as typeof BetterSqlite3;
    database = new Database(sqlitePath);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    checkpointer = new SqliteSaver(database);
  }
  const agent = deepagents.createDeepAgent({
    model: new ScriptedChatModel('main'),
    systemPrompt: 'You are the benchmark main agent.',
    subagents: [
      {
        name: 'helper',
        description: 'Helps with investigations',
        systemPrompt: 'You research one question and report what you found.',
        model: new ScriptedChatModel('helper'),
      },
    ],
    ...(checkpointer ? { checkpointer } : {}),
  });
  const version = (rootRequire('./bench/node_modules/deepagents/package.json') as { version: string })
    .version;
  return {
    kind,
    version,
    async invoke(input, threadId) {
      const result = await agent.invoke(
        { messages: [{ role: 'user', content: input }] },
        { configurable: { thread_id: threadId } },
      );
      return textOf(result.messages.at(-1));
    },
    close() {
      database?.close();
    },
  };
}
