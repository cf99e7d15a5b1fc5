import { parseArgs } from 'node:util';
import { findUser } from './find-user.js';
import { CliUsageError, withTroupe, type CliDeps } from './run-cli.js';

/** One conversation turn in this process: the worker runs here too, so no server is needed. */
export function runCommand(deps: CliDeps, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      agent: { type: 'string' },
      user: { type: 'string', default: 'demo' },
      'request-id': { type: 'string' },
    },
  });
  const message = positionals.join(' ').trim();
  if (!values.agent || message === '') throw new CliUsageError('run needs --agent SLUG and a MESSAGE');
  const agentRef = values.agent;
  return withTroupe(deps, 'all', async (troupe) => {
    const user = await findUser(troupe, values.user);
    const conversation = await troupe.conversations.create(user, { agent_id: agentRef, title: message.slice(0, 60) });
    const { run } = await troupe.runs.postMessage(user, conversation.id, {
      content: message,
      request_id: values['request-id'],
      channel: 'api',
    });
    const events = await troupe.runs.streamEvents(user, run.id, 0, new AbortController().signal);
    for await (const event of events) {
      if (event.type === 'message_delta') process.stdout.write(String(event.payload.text));
      else if (event.type === 'tool_call') process.stdout.write(`\n[tool ${String(event.payload.name)}] ${JSON.stringify(event.payload.args)}\n`);
      else if (event.type === 'tool_result') process.stdout.write(`[result] ${JSON.stringify(event.payload.output).slice(0, 200)}\n`);
    }
    const result = await troupe.runs.getResult(user, run.id);
    console.log(`\n\nrun ${result.run_id}: ${result.status}${result.error ? ` (${result.error.type}: ${result.error.message})` : ''}`);
    return result.status === 'completed' ? 0 : 1;
  });
}
