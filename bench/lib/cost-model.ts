import type { FakeModelResponse, RecordedRequest } from '../../test/helpers/models/fake-model-server.js';

/**
 * The model both contenders of the cost suite talk to over HTTP (a fake OpenAI or Anthropic server): it
 * decides from the request alone, as the dispatch suite's scripted models do, so Troupe and deepagents get
 * the same replies for the same work whatever their prompts look like.
 *
 * - the helper (system prompt `HELPER_PROMPT`) answers its brief with a one-line report;
 * - the main agent answers a user message containing `team` with three `task` calls in one step, `dispatch`
 *   with one, `files` with an `ls` call, anything else with a short text; after tool results, a short text;
 * - a compaction request (Troupe's summariser) gets a short summary.
 */
export const MAIN_PROMPT = 'You are the benchmark main agent. Answer briefly.';
export const HELPER_PROMPT = 'You research one question and report what you found.';
export const HELPER_DESCRIPTION = 'helper agent';

type Part = Record<string, unknown>;
const isPart = (value: unknown): value is Part => typeof value === 'object' && value !== null;

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isPart(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

interface Reading {
  system: string;
  /** The last message is the answer to tool calls. */
  afterTools: boolean;
  firstUser: string;
  lastUser: string;
  /** `task`'s argument naming the subagent: `subagent_slug` (Troupe) or `subagent_type` (deepagents). */
  slugArgument: string;
}

function isToolResultMessage(message: Part): boolean {
  if (message.role === 'tool') return true;
  return (
    message.role === 'user' &&
    Array.isArray(message.content) &&
    message.content.some((part: unknown) => isPart(part) && part.type === 'tool_result')
  );
}

function read(request: RecordedRequest): Reading {
  const body = request.body;
  const messages = ((body.messages as Part[] | undefined) ?? []).filter(isPart);
  const system = [
    text(body.system),
    ...messages.filter((message) => message.role === 'system').map((message) => text(message.content)),
  ].join('\n');
  const users = messages.filter((message) => message.role === 'user' && !isToolResultMessage(message));
  const last = messages.at(-1);
  const tools = ((body.tools as Part[] | undefined) ?? []).map((tool) => (tool.function ?? tool) as Part);
  const task = tools.find((tool) => tool.name === 'task');
  const schema = (task?.parameters ?? task?.input_schema ?? {}) as { properties?: Record<string, unknown> };
  return {
    system,
    afterTools: last !== undefined && isToolResultMessage(last),
    firstUser: text(users[0]?.content),
    lastUser: text(users.at(-1)?.content),
    slugArgument:
      schema.properties && 'subagent_type' in schema.properties ? 'subagent_type' : 'subagent_slug',
  };
}

const taskCall = (slugArgument: string, brief: string) => ({
  name: 'task',
  args: { description: brief, [slugArgument]: 'helper' },
});

export function costModelReply(request: RecordedRequest): FakeModelResponse {
  const reading = read(request);
  if (reading.system.includes('You summarise the earlier part'))
    return { text: 'Summary: the user sent numbered notes; each was acknowledged. Nothing is pending.' };
  if (reading.system.includes(HELPER_PROMPT)) return { text: `Helper report on <${reading.firstUser}>` };
  if (reading.afterTools) return { text: 'Done: the results are in.' };
  const asked = reading.lastUser;
  if (asked.includes('team')) {
    return {
      toolCalls: ['alpha', 'beta', 'gamma'].map((part) =>
        taskCall(reading.slugArgument, `Investigate ${part}: ${asked}`),
      ),
    };
  }
  if (asked.includes('dispatch'))
    return { toolCalls: [taskCall(reading.slugArgument, `Investigate: ${asked}`)] };
  if (asked.includes('files')) return { toolCalls: [{ name: 'ls', args: {} }] };
  return { text: `Noted: ${asked.slice(0, 40)}` };
}
