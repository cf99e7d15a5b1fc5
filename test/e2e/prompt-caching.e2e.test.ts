import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../helpers/models/fake-model-server.js';
import { startModelFaultWorld, type ModelFaultWorld } from '../helpers/model-fault-world.js';

/**
 * Prompt caching over real HTTP (docs/model-calls.md#prompt-caching): the real Anthropic and OpenAI adapters
 * send cache breakpoints / a per-thread `prompt_cache_key` to fake servers that model the providers' prefix
 * caching; the prompt's prefix is byte-stable from step to step, and the run's usage records what the cache
 * read and wrote.
 */
let world: ModelFaultWorld;
let agents = 0;

beforeAll(async () => {
  world = await startModelFaultWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** Three model calls in one run: two tool steps, then the answer. */
async function threeSteps(spec: string, config: Record<string, unknown> = {}) {
  agents += 1;
  const slug = `cache${agents}`;
  world.script(slug, [
    { toolCalls: [{ name: 'ls', args: {} }] },
    { toolCalls: [{ name: 'glob', args: { pattern: '**/*.md' } }] },
    { text: 'Done.' },
  ]);
  await world.createAgent(slug, { model: spec, tools: ['read_file', 'ls', 'glob', 'grep'], ...config });
  const { runId } = await world.chat(slug, 'List the files.');
  const run = await world.awaitRun(runId);
  return { run, requests: world.requestsOf(slug) };
}

/** A body with every `cache_control` marker removed, as JSON: what the prefix is made of. */
function unmarked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unmarked);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cache_control')
      .map(([key, entry]) => [key, unmarked(entry)]),
  );
}

function markers(request: RecordedRequest): number {
  return (JSON.stringify(request.body).match(/"cache_control":\{"type":"ephemeral"\}/g) ?? []).length;
}

describe('Anthropic prompt caching', () => {
  it('marks tools, system and the last messages, at most 4 breakpoints, and the prefix is byte-stable', async () => {
    const { run, requests } = await threeSteps('anthropic:claude-test');
    expect(run.status).toBe('completed');
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      const body = request.body as {
        tools: { cache_control?: unknown }[];
        system: { cache_control?: unknown }[];
      };
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(markers(request)).toBeLessThanOrEqual(4);
    }
    const [first, second, third] = requests.map((request) => request.body);
    // Tools and system: the same bytes, markers included, at every step.
    expect(JSON.stringify(second?.tools)).toBe(JSON.stringify(first?.tools));
    expect(JSON.stringify(third?.system)).toBe(JSON.stringify(first?.system));
    // Messages: each step's prompt is the start of the next one's, byte for byte once markers are set aside.
    const messages = (body: unknown) => unmarked((body as { messages: unknown[] }).messages) as unknown[];
    for (const [earlier, later] of [
      [first, second],
      [second, third],
    ] as const) {
      const before = messages(earlier);
      expect(JSON.stringify(messages(later).slice(0, before.length))).toBe(JSON.stringify(before));
    }
  });

  it('records cache reads and writes in the run usage', async () => {
    const { run } = await threeSteps('anthropic:claude-test');
    const usage = run.usage as Record<string, number> | null;
    expect(usage?.cache_write_tokens).toBeGreaterThan(0);
    expect(usage?.cache_read_tokens).toBeGreaterThan(0);
    expect(usage?.cache_read_tokens ?? 0).toBeLessThan(usage?.input_tokens ?? 0);
  });

  it('sends no breakpoint when the agent turns caching off', async () => {
    const { run, requests } = await threeSteps('anthropic:claude-test', { prompt_cache: false });
    expect(run.status).toBe('completed');
    for (const request of requests) expect(markers(request)).toBe(0);
    expect((run.usage as Record<string, number> | null)?.cache_read_tokens).toBeUndefined();
  });
});

interface TreeTotals {
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  budget_tokens: number;
}
interface TreeNode {
  budget: { used: { tokens: number }; tokens_counted: string } | null;
  totals: { own: TreeTotals; subtree: TreeTotals };
}

async function treeOf(runId: string): Promise<TreeNode> {
  const response = await world.server.api(`/api/agent/runs/${runId}/tree`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { tree: TreeNode }).tree;
}

describe('a byte-stable prefix across turns', () => {
  it('sends the same tools and system bytes on the next turn, whatever order rows were written in, and reads them from the cache', async () => {
    // Subagents created in reverse order of their names, one of them updated between the turns.
    for (const name of ['zeta', 'alpha']) {
      const created = await world.server.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          name,
          slug: `${name}-sub`,
          description: `The ${name} helper`,
          backend: 'subagent',
          is_subagent: true,
          config: { model: 'anthropic:claude-test', system_prompt: `ROLE:${name}` },
        }),
      });
      expect(created.status).toBe(201);
    }
    // Knowledge sources too, created in reverse order of their names.
    for (const name of ['zz-notes', 'aa-notes']) {
      const created = await world.server.api('/api/knowledge', {
        method: 'POST',
        body: JSON.stringify({ name, description: `Notes ${name}` }),
      });
      expect(created.status).toBe(201);
    }
    world.script('stable', [{ toolCalls: [{ name: 'ls', args: {} }] }, { text: 'One.' }, { text: 'Two.' }]);
    await world.createAgent('stable', {
      model: 'anthropic:claude-test',
      tools: ['read_file', 'ls', 'glob'],
      knowledge_sources: ['zz-notes', 'aa-notes'],
    });
    const { runId, conversationId } = await world.chat('stable', 'First turn.');
    expect((await world.awaitRun(runId)).status).toBe('completed');

    const updated = await world.server.api('/api/agent/zeta-sub', {
      method: 'PUT',
      body: JSON.stringify({
        config: { model: 'anthropic:claude-test', system_prompt: 'ROLE:zeta, updated' },
      }),
    });
    expect(updated.status).toBe(200);
    const next = await world.server.api(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'Second turn.' }),
    });
    const { run: second } = (await next.json()) as { run: { id: string } };
    const ended = await world.awaitRun(second.id);
    expect(ended.status).toBe('completed');

    const requests = world.requestsOf('stable');
    expect(requests).toHaveLength(3);
    const [first, , turnTwo] = requests.map((request) => request.body as { tools: unknown; system: unknown });
    expect(JSON.stringify(turnTwo?.tools)).toBe(JSON.stringify(first?.tools));
    expect(JSON.stringify(turnTwo?.system)).toBe(JSON.stringify(first?.system));
    const system = JSON.stringify(first?.system);
    expect(system.indexOf('- alpha-sub:')).toBeGreaterThan(0);
    expect(system.indexOf('- alpha-sub:')).toBeLessThan(system.indexOf('- zeta-sub:'));
    expect(system.indexOf('- aa-notes')).toBeGreaterThan(0);
    expect(system.indexOf('- aa-notes')).toBeLessThan(system.indexOf('- zz-notes'));
    // The second turn's one call read the first turn's prompt from the cache.
    const usage = ended.usage as Record<string, number> | null;
    expect(usage?.cache_read_tokens).toBeGreaterThan(0);
    expect(usage?.cache_read_tokens ?? 0).toBeGreaterThan((usage?.input_tokens ?? 0) / 2);
  });
});

describe('budgets count cached tokens at their price', () => {
  it('a token budget that raw counts would exhaust holds, and the run tree shows both figures', async () => {
    // An unbudgeted run measures the workload: its raw tokens and its cache-weighted tokens.
    const measured = await threeSteps('anthropic:claude-test');
    const sized = await treeOf(measured.run.id);
    const raw = sized.totals.own.total_tokens;
    const weighted = sized.totals.own.budget_tokens;
    // Anthropic: reads at 0.1×, writes at 1.25× an uncached input token.
    expect(weighted).toBeLessThan(raw);
    // A tenth over the cache-weighted figure: far under the raw one, which the run passes by its second call.
    const limit = weighted + Math.floor(weighted / 10);
    expect(limit).toBeLessThan((raw * 2) / 3);

    const { run } = await threeSteps('anthropic:claude-test', { budget: { tokens: limit } });
    expect(run.error).toBeNull();
    expect(run.status).toBe('completed');
    const tree = await treeOf(run.id);
    expect(tree.budget?.tokens_counted).toBe('cache_weighted');
    expect(tree.totals.own.cache_read_tokens).toBeGreaterThan(0);
    expect(tree.totals.own.total_tokens).toBeGreaterThan(limit);
    expect(tree.budget?.used.tokens).toBeLessThanOrEqual(limit);
    expect(tree.totals.own.budget_tokens).toBe(tree.budget?.used.tokens);
    expect(tree.totals.subtree.budget_tokens).toBe(tree.totals.own.budget_tokens);

    // The same budget without caching counts every token in full and runs out.
    const uncached = await threeSteps('anthropic:claude-test', {
      budget: { tokens: limit },
      prompt_cache: false,
    });
    expect(uncached.run.status).toBe('failed');
    expect(uncached.run.error?.type).toBe('budget_exhausted');
    expect(uncached.run.error?.message).toMatch(
      new RegExp(`of ${limit} tokens \\(cache reads and writes at their price\\) used`),
    );
  });
});

describe('OpenAI prompt caching', () => {
  it('sends one prompt_cache_key per thread and records cached tokens', async () => {
    // Enough system prompt for the provider's 1,024-token minimum.
    const { run, requests } = await threeSteps('openai:gpt-test', {
      system_prompt: `ROLE:cache${agents + 1}\n${'Background the model keeps in mind. '.repeat(200)}`,
    });
    expect(run.status).toBe('completed');
    const keys = new Set(requests.map((request) => request.body.prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/./);
    expect((run.usage as Record<string, number> | null)?.cache_read_tokens).toBeGreaterThan(0);
  });
});
