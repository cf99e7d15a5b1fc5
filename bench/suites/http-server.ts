/**
 * The server of the HTTP benchmark, in a process of its own so the load generator does not share its event
 * loop. `--role api` serves without a worker (runs stay pending: the pure run-start path); `--role all` also
 * executes every run (a one-step scripted answer, zero delay). Prints one JSON line `{url, token,
 * conversations}` when ready; on stdin, `count` prints the run counts by status and the process's CPU time
 * so far, `wait N` answers once N runs have ended, `exit` stops it.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { RunStatus } from '../../src/core/records/run.js';
import { listen } from '../../src/create-troupe.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';

const { values } = parseArgs({
  options: { role: { type: 'string', default: 'api' }, conversations: { type: 'string', default: '1000' } },
});
const role = values.role === 'all' ? 'all' : 'api';
const env = await startEmbeddedTroupe({
  scenarios: { echo: JSON.stringify({ rules: [{ steps: [{ text: 'You said: {{input}}' }] }] }) },
  role,
});
const agent = await env.createAgent('echo', { model: 'scripted:echo', tools: [] });
const conversations = await env.createConversations(agent, Number(values.conversations));
// Runs that reached a terminal state, counted from their `end` events (no database polling).
let ended = 0;
let onEnded: (() => void) | undefined;
const publish = env.troupe.bus.publish.bind(env.troupe.bus);
env.troupe.bus.publish = (event) => {
  if (event.type === 'end') {
    ended += 1;
    onEnded?.();
  }
  return publish(event);
};
const server = await listen(env.troupe);
const { token } = await env.troupe.auth.issueToken(env.user.id, 'bench');
process.stdout.write(
  `${JSON.stringify({ url: server.url, token, conversations: conversations.map((conversation) => conversation.id) })}\n`,
);

async function countRuns(): Promise<Record<string, number>> {
  const counts: Record<string, number> = { total: 0 };
  for (const conversation of conversations) {
    for (const run of await env.troupe.storage.runs.listByConversation(conversation.id)) {
      counts.total = (counts.total ?? 0) + 1;
      const status: RunStatus = run.status;
      counts[status] = (counts[status] ?? 0) + 1;
    }
  }
  return counts;
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'count') {
    const cpu = process.cpuUsage();
    process.stdout.write(
      `${JSON.stringify({ counts: await countRuns(), cpu_ms: (cpu.user + cpu.system) / 1000 })}\n`,
    );
  }
  const wait = /^wait (\d+)$/.exec(line);
  if (wait) {
    const target = Number(wait[1]);
    while (ended < target) await new Promise<void>((resolve) => (onEnded = resolve));
    onEnded = undefined;
    process.stdout.write(`${JSON.stringify({ ended })}\n`);
  }
  if (line === 'exit') break;
}
await server.close();
await env.close();
process.exit(0);
