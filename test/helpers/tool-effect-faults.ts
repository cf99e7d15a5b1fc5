import { expect } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import type { ThreadMessage } from '../../src/core/records/thread-message.js';
import { TOOL_EFFECTS, type ToolEffect } from '../../src/core/tools/tool-effect.js';
import { hasUnknownOutcome } from '../../src/core/tools/unknown-outcome.js';
import { delay, eventually } from './eventually.js';
import { COUNTING_TOOLS, type CountingMcpServer } from './mcp/counting-mcp-server.js';
import type { FakeModelResponse, RecordedRequest } from './models/fake-model-server.js';

/*
 * The kill -9 fault rounds of the tool-effect suites (docs/effects-and-forks.md#the-journal): one run per kill point
 * and effect class, all brought to their point by the test doubles (the fake model and the counting MCP server
 * wait until the test kills the worker), one SIGKILL, recovery, then the counts.
 */

/** Where the worker dies: after the model asked for the call (nothing committed since), while the tool runs,
 * after it returned and before its result was committed, and during the next model call. */
export const KILL_POINTS = ['asked', 'running', 'returned', 'next_model'] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

const RUN_TIMEOUT_MS = 90_000;

export interface FaultTarget {
  api(pathname: string, init?: RequestInit): Promise<Response>;
  /** Blocks every write of the thread (the test's own lock) until the returned function is called. */
  lockWrites(): Promise<() => Promise<void>>;
  /** SIGKILL of every process executing these runs. */
  kill(runs: readonly Run[]): Promise<void>;
  /** Brings up what takes the runs over (a restarted server, the surviving worker). */
  recover(): Promise<void>;
}

export interface RoundFigures {
  point: KillPoint;
  effect: ToolEffect;
  /** How often the tool ran, over both attempts. */
  runs: number;
  /** The call's result was "outcome unknown". */
  unknown: boolean;
  /** Every tool call of the conversation has its result, and a next message completed. */
  usable: boolean;
}

/** The fake model of the rounds: a run's message `fx POINT EFFECT` asks for the class's tool once, then answers. */
export function faultModel() {
  const askedAt = new Map<string, number>();
  const nextModelEntered = new Set<string>();
  const answered = new Set<string>();
  // The model holds its answers of the `asked` runs until the test has taken the write lock.
  let releaseAsked: () => void = () => undefined;
  const askedGate = new Promise<void>((resolve) => (releaseAsked = resolve));
  return {
    askedAt,
    nextModelEntered,
    releaseAsked: () => releaseAsked(),
    answer(request: RecordedRequest): FakeModelResponse {
      const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
      const lastUser = messages.map((message) => message.role).lastIndexOf('user');
      const text = messages[lastUser]?.content;
      const input = typeof text === 'string' ? text : JSON.stringify(text);
      const match = /^fx (\w+) (\w+)$/.exec(input);
      if (!match) return { text: 'ok' };
      const [, point = '', effect = ''] = match;
      const key = `${point}-${effect}`;
      const turn = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
      if (turn === 0) {
        const first = !askedAt.has(key);
        if (first) askedAt.set(key, Date.now());
        return {
          toolCalls: [{ name: `mcp__fx__${COUNTING_TOOLS[effect as ToolEffect]}`, args: { key } }],
          ...(point === 'asked' && first ? { until: askedGate } : {}),
        };
      }
      if (point === 'next_model' && !answered.has(key)) {
        answered.add(key);
        nextModelEntered.add(key);
        return { delayMs: 120_000, text: 'too late' };
      }
      return { text: `done ${key}` };
    },
  };
}

async function json<T>(response: Promise<Response>, status = 200): Promise<T> {
  const resolved = await response;
  const body = await resolved.text();
  if (resolved.status !== status) throw new Error(`expected HTTP ${status}, got ${resolved.status}: ${body}`);
  return JSON.parse(body) as T;
}

function post(body: unknown): RequestInit {
  return { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

/** The agent of the rounds: the fake model and the counting server's three tools, nothing else. */
export async function createFaultAgent(target: FaultTarget, mcpUrl: string): Promise<void> {
  await json(
    target.api(
      '/api/agent',
      post({
        slug: 'fx',
        name: 'fx',
        description: 'calls one counting tool',
        config: {
          model: 'openai:gpt-test',
          system_prompt: 'ROLE:fx',
          tools: [],
          mcp_servers: [{ name: 'fx', transport: 'http', url: mcpUrl }],
        },
      }),
    ),
    201,
  );
}

/** One kill -9 round over every point and class; returns what each run saw. */
export async function faultRound(
  target: FaultTarget,
  mcp: CountingMcpServer,
  model: ReturnType<typeof faultModel>,
): Promise<RoundFigures[]> {
  const cases = KILL_POINTS.flatMap((point) => TOOL_EFFECTS.map((effect) => ({ point, effect })));
  const holds = new Map(
    cases
      .filter(({ point }) => point === 'running' || point === 'returned')
      .map(({ point, effect }) => [`${point}-${effect}`, mcp.hold(`${point}-${effect}`)]),
  );
  const started = await Promise.all(
    cases.map(async ({ point, effect }) => {
      const { conversation } = await json<{ conversation: { id: string } }>(
        target.api('/api/conversations', post({ agent_id: 'fx' })),
        201,
      );
      const { run } = await json<{ run: Run }>(
        target.api(
          `/api/conversations/${conversation.id}/messages`,
          post({ content: `fx ${point} ${effect}` }),
        ),
        202,
      );
      return { point, effect, key: `${point}-${effect}`, conversationId: conversation.id, run };
    }),
  );
  // Every run at its point: in the tool (running, returned), in its next model call, or asked and waiting.
  await Promise.all([...holds.values()].map((held) => held.entered));
  await eventually('the next model calls', RUN_TIMEOUT_MS, () =>
    Promise.resolve(
      TOOL_EFFECTS.every((effect) => model.nextModelEntered.has(`next_model-${effect}`)) || undefined,
    ),
  );
  const askedKeys = TOOL_EFFECTS.map((effect) => `asked-${effect}`);
  await eventually('the asked runs at the model', RUN_TIMEOUT_MS, () =>
    Promise.resolve(askedKeys.every((key) => model.askedAt.has(key)) || undefined),
  );
  // Under the write lock the model answers the asked runs and the returned calls return: their commits wait.
  const unlock = await target.lockWrites();
  model.releaseAsked();
  for (const effect of TOOL_EFFECTS) holds.get(`returned-${effect}`)?.release();
  await delay(800);
  await target.kill(started.map((entry) => entry.run));
  for (const held of holds.values()) held.release();
  await unlock();
  await target.recover();

  const figures: RoundFigures[] = [];
  for (const entry of started) {
    const { run } = await json<{ run: Run; wait_timed_out: boolean }>(
      target.api(`/api/agent/runs/${entry.run.id}/await?timeout_ms=${RUN_TIMEOUT_MS}`),
    );
    expect(run.status, `${entry.key}: ${JSON.stringify(run.error)}`).toBe('completed');
    // A next message in the same conversation completes: the thread is a valid prompt.
    const { run: next } = await json<{ run: Run }>(
      target.api(`/api/conversations/${entry.conversationId}/messages`, post({ content: 'and now?' })),
      202,
    );
    const { run: nextDone } = await json<{ run: Run }>(
      target.api(`/api/agent/runs/${next.id}/await?timeout_ms=${RUN_TIMEOUT_MS}`),
    );
    const { messages } = await json<{ messages: ThreadMessage[] }>(
      target.api(`/api/conversations/${entry.conversationId}/messages`),
    );
    const calls = new Set<string>();
    const results = new Map<string, boolean>();
    for (const { message } of messages) {
      if (typeof message.content === 'string') continue;
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.add(part.toolCallId);
        if (part.type === 'tool-result') results.set(part.toolCallId, hasUnknownOutcome(part));
      }
    }
    figures.push({
      point: entry.point,
      effect: entry.effect,
      runs: mcp.count(COUNTING_TOOLS[entry.effect], entry.key),
      unknown: [...results.values()].some(Boolean),
      usable: nextDone.status === 'completed' && [...calls].every((id) => results.has(id)),
    });
  }
  return figures;
}

/** What the rounds must show: no external effect twice, no call without a result, every conversation usable. */
export function expectFaultsSurvived(figures: readonly RoundFigures[]): void {
  const table = figures.map(
    (f) =>
      `${f.point.padEnd(10)} ${f.effect.padEnd(10)} runs=${f.runs} unknown=${f.unknown} usable=${f.usable}`,
  );
  console.log(`tool effects under kill -9:\n${table.join('\n')}`);
  for (const f of figures) {
    const label = `${f.point} ${f.effect}`;
    expect(f.usable, label).toBe(true);
    if (f.effect === 'external') {
      expect(f.runs, label).toBe(1);
      // Cut off while it ran or before its result was committed: not run again, and said so.
      expect(f.unknown, label).toBe(f.point === 'running' || f.point === 'returned');
    } else {
      // Read-only and idempotent calls run again when they left no result, never when they did.
      expect(f.runs, label).toBe(f.point === 'running' || f.point === 'returned' ? 2 : 1);
      expect(f.unknown, label).toBe(false);
    }
  }
}
