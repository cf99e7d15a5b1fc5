/**
 * Benchmark: what the model is sent (issue 34). Troupe (embedded, its real OpenAI and Anthropic adapters)
 * and deepagents (LangChain's ChatOpenAI) play the same workloads against the same fake model server on
 * 127.0.0.1 (bench/lib/cost-model.ts answers both alike), and every request body is counted with one
 * tokenizer, o200k (bench/lib/request-tokens.ts):
 *
 * - a dispatch: main agent → `task` → one subagent → answer (the dispatch suite's workload);
 * - a team run: main agent → three `task` calls in one step → three subagents → answer;
 * - a conversation of 30 turns on one thread, short answers, an `ls` call every fifth turn.
 *
 * Troupe alone: the cached share of input tokens over a 20-turn Anthropic conversation (the fake models
 * Anthropic's prefix caching from the breakpoints it is sent: test/helpers/models/fake-prompt-cache.ts), and
 * the compactions a 300-turn conversation takes on a model with an 8,192-token window.
 */
import { writeFileSync } from 'node:fs';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Agent } from '../../src/core/records/agent.js';
import { defaultUsage, type RecordedRequest } from '../../test/helpers/models/fake-model-server.js';
import { startFakeAnthropicServer } from '../../test/helpers/models/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../../test/helpers/models/fake-openai-server.js';
import { anthropicPromptCache } from '../../test/helpers/models/fake-prompt-cache.js';
import { costModelReply, HELPER_PROMPT, MAIN_PROMPT } from '../lib/cost-model.js';
import { HELPER_CONFIG, MAIN_CONFIG } from '../lib/dispatch-scenario.js';
import { createDeepAgentsCostSide } from '../lib/deepagents-cost.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { countRequestTokens, sumRequestTokens, type RequestTokens } from '../lib/request-tokens.js';
import { round } from '../lib/stats.js';
import { progress, runSuite } from '../lib/suite.js';

/** The n-th user message of a conversation: a short note, and every fifth turn a request for a tool call. */
const conversationTurn = (n: number) =>
  n % 5 === 0
    ? `Turn ${n}: list the files in the project folder, please.`
    : `Turn ${n}: keep this note in mind, item ${n} is settled and needs no further work.`;

const SMALL_WINDOW = 8192;
const SMALL_OUTPUT = 1024;

const perUnit = (tokens: RequestTokens, units: number) => ({
  system: round(tokens.system / units),
  messages: round(tokens.messages / units),
  tools: round(tokens.tools / units),
  total: round(tokens.total / units),
});

async function describeFirst(request: RecordedRequest | undefined) {
  if (!request) return undefined;
  const tools = (
    (request.body.tools as { function?: { name: string }; name?: string }[] | undefined) ?? []
  ).map((tool) => tool.function?.name ?? tool.name ?? '?');
  return {
    tools,
    chars: JSON.stringify(request.body).length,
    tokens: await countRequestTokens(request.body),
  };
}

await runSuite('cost', async ({ quick }) => {
  const plan = quick
    ? { conversation_turns: 10, cached_turns: 8, long_turns: 60 }
    : { conversation_turns: 30, cached_turns: 20, long_turns: 300 };
  const openai = await startFakeOpenAiServer({ responses: costModelReply });
  const anthropic = await startFakeAnthropicServer({ responses: costModelReply });
  const env = await startEmbeddedTroupe({
    scenarios: {},
    config: {
      openaiBaseUrl: openai.baseURL,
      openaiApiKey: 'sk-bench',
      anthropicBaseUrl: anthropic.baseURL,
      anthropicApiKey: 'ak-bench',
    },
  });
  const { troupe, user } = env;
  let compactions = 0;
  const publish = troupe.bus.publish.bind(troupe.bus);
  troupe.bus.publish = (event: RunEvent) => {
    if (event.type === 'context_compacted') compactions += 1;
    return publish(event);
  };
  const withModel = (model: string) => ({ model, system_prompt: MAIN_PROMPT });
  await env.createAgent(
    'helper',
    { ...HELPER_CONFIG, ...withModel('openai:gpt-bench'), system_prompt: HELPER_PROMPT },
    {
      subagent: true,
    },
  );
  const main = await env.createAgent('main', { ...MAIN_CONFIG, ...withModel('openai:gpt-bench') });
  const cached = await env.createAgent('cached', { ...MAIN_CONFIG, ...withModel('anthropic:claude-bench') });
  // The main agent's tools and subagents on a small window: what a real agent carries into every call.
  const small = await env.createAgent('small', {
    ...MAIN_CONFIG,
    ...withModel('openai:gpt-bench'),
    context_window: SMALL_WINDOW,
    max_output_tokens: SMALL_OUTPUT,
  });

  /** Plays `turns` user messages on one new Troupe conversation; returns the requests they caused. */
  async function troupeConversation(agent: Agent, turns: string[]): Promise<RecordedRequest[]> {
    const [conversation] = await env.createConversations(agent, 1);
    if (!conversation) throw new Error('no conversation');
    const from = { openai: openai.requests.length, anthropic: anthropic.requests.length };
    for (const content of turns) {
      const { run } = await troupe.runs.postMessage(user, conversation.id, { content });
      const done = await troupe.runs.await(user, run.id, 60_000);
      if (done.run.status !== 'completed')
        throw new Error(`Troupe run ${run.id} ended ${done.run.status}: ${JSON.stringify(done.run.error)}`);
    }
    return [...openai.requests.slice(from.openai), ...anthropic.requests.slice(from.anthropic)];
  }

  const deep = await createDeepAgentsCostSide(openai.baseURL);
  let deepThreads = 0;
  async function deepConversation(turns: string[]): Promise<RecordedRequest[]> {
    const from = openai.requests.length;
    const thread = `cost-${deepThreads++}`;
    for (const content of turns) await deep.turn(content, thread);
    return openai.requests.slice(from);
  }

  async function both(name: string, turns: string[]) {
    progress('cost', `${name}: ${turns.length} turn(s), Troupe then deepagents`);
    const troupeRequests = await troupeConversation(main, turns);
    const deepRequests = await deepConversation(turns);
    return {
      troupe: {
        requests: troupeRequests.length,
        tokens: await sumRequestTokens(troupeRequests.map((request) => request.body)),
        first_request: await describeFirst(troupeRequests[0]),
      },
      deepagents: {
        requests: deepRequests.length,
        tokens: await sumRequestTokens(deepRequests.map((request) => request.body)),
        first_request: await describeFirst(deepRequests[0]),
      },
    };
  }

  const dispatch = await both('dispatch', ['dispatch question 1']);
  const team = await both('team run', ['team question 1']);
  const turns = Array.from({ length: plan.conversation_turns }, (_, index) => conversationTurn(index + 1));
  const conversation = await both('conversation', turns);

  progress('cost', `cached share: ${plan.cached_turns} Anthropic turns`);
  const cachedRequests = await troupeConversation(
    cached,
    Array.from({ length: plan.cached_turns }, (_, index) => conversationTurn(index + 1)),
  );
  // The fake's cache model replayed over the requests in order: what it reported, as chars / 4 like its usage.
  const cache = anthropicPromptCache();
  let inputTokens = 0;
  let readTokens = 0;
  let writeTokens = 0;
  for (const request of cachedRequests) {
    const usage = defaultUsage(request.body, { text: '' });
    const seen = cache(request.body);
    inputTokens += usage.inputTokens;
    readTokens += Math.min(seen.cacheReadTokens, usage.inputTokens);
    writeTokens += seen.cacheWriteTokens;
  }

  progress('cost', `compaction: ${plan.long_turns} turns on a ${SMALL_WINDOW}-token window`);
  const compactionsBefore = compactions;
  const longRequests = await troupeConversation(
    small,
    Array.from({ length: plan.long_turns }, (_, index) => conversationTurn(index + 1)),
  );
  const longCompactions = compactions - compactionsBefore;
  const longTokens = await Promise.all(longRequests.map((request) => countRequestTokens(request.body)));
  // COST_DUMP=file: every request body both fakes received, to see where the tokens go.
  if (process.env.COST_DUMP) {
    const bodies = (requests: RecordedRequest[]) => requests.map((request) => request.body);
    writeFileSync(
      process.env.COST_DUMP,
      JSON.stringify({ openai: bodies(openai.requests), anthropic: bodies(anthropic.requests) }),
    );
  }
  await env.close();
  await Promise.all([openai.close(), anthropic.close()]);

  const ratio = (key: 'dispatch' | 'team' | 'conversation', units: number) =>
    round(
      { dispatch, team, conversation }[key].troupe.tokens.total /
        units /
        ({ dispatch, team, conversation }[key].deepagents.tokens.total / units),
    );
  const teamRatio = ratio('team', 1);
  return {
    plan,
    tokenizer: 'o200k (gpt-tokenizer), on the request bodies: system, messages, tool schemas (JSON)',
    deepagents_version: deep.version,
    per_dispatch: {
      troupe: { requests: dispatch.troupe.requests, ...perUnit(dispatch.troupe.tokens, 1) },
      deepagents: { requests: dispatch.deepagents.requests, ...perUnit(dispatch.deepagents.tokens, 1) },
      ratio: ratio('dispatch', 1),
    },
    per_team_run: {
      troupe: { requests: team.troupe.requests, ...perUnit(team.troupe.tokens, 1) },
      deepagents: { requests: team.deepagents.requests, ...perUnit(team.deepagents.tokens, 1) },
      ratio: teamRatio,
      goal: { max_ratio: 0.6, met: teamRatio <= 0.6 },
    },
    per_turn: {
      turns: plan.conversation_turns,
      troupe: {
        requests: conversation.troupe.requests,
        ...perUnit(conversation.troupe.tokens, plan.conversation_turns),
      },
      deepagents: {
        requests: conversation.deepagents.requests,
        ...perUnit(conversation.deepagents.tokens, plan.conversation_turns),
      },
      ratio: ratio('conversation', plan.conversation_turns),
    },
    main_agent_first_request: {
      troupe: dispatch.troupe.first_request,
      deepagents: dispatch.deepagents.first_request,
    },
    anthropic_cache: {
      turns: plan.cached_turns,
      requests: cachedRequests.length,
      input_tokens: inputTokens,
      cache_read_tokens: readTokens,
      cache_write_tokens: writeTokens,
      cached_share: round(readTokens / inputTokens),
      goal: { min_share: 0.7, met: readTokens / inputTokens >= 0.7 },
    },
    compaction: {
      turns: plan.long_turns,
      context_window: SMALL_WINDOW,
      max_output_tokens: SMALL_OUTPUT,
      compactions: longCompactions,
      requests: longRequests.length,
      largest_request_tokens: Math.max(...longTokens.map((tokens) => tokens.total)),
    },
  };
});
