import { parseArgs } from 'node:util';
import type { RunEventOf } from '../core/records/run-event.js';
import { questionsOf } from '../core/questions/user-questions.js';
import { askOnTerminal, lineReader, type LineReader } from './answer-on-terminal.js';
import { findUser } from './find-user.js';
import { CliUsageError, withTroupe, type CliDeps } from './cli-support.js';

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
    const conversation = await troupe.conversations.create(user, { agent_id: agentRef });
    const { run } = await troupe.runs.postMessage(user, conversation.id, {
      content: message,
      request_id: values['request-id'],
      channel: 'api',
    });
    const events = await troupe.runs.streamEvents(user, run.id, 0, new AbortController().signal);
    let stdin: LineReader | undefined;
    const write = (text: string) => process.stdout.write(text);
    try {
      for await (const event of events) {
        if (event.type === 'message_delta') write(event.payload.text);
        else if (event.type === 'tool_call')
          write(`\n[tool ${event.payload.name}] ${JSON.stringify(event.payload.args)}\n`);
        else if (event.type === 'tool_result')
          write(`[result] ${JSON.stringify(event.payload.output).slice(0, 200)}\n`);
        else if (event.type === 'model_retry' || event.type === 'model_fallback')
          write(`\n${modelCallLine(event)}\n`);
        else if (event.type === 'question_required') {
          // The agent asks: answer here, on standard input; without one the run cannot go on, so it is cancelled.
          stdin ??= lineReader(process.stdin);
          const answers = await askOnTerminal(
            questionsOf({ questions: event.payload.questions }),
            stdin,
            write,
          );
          if (answers) await troupe.runs.answerQuestion(user, run.id, event.payload.tool_call_id, answers);
          else {
            write('\nNo answer on standard input: cancelling the run.\n');
            await troupe.runs.cancel(user, run.id);
          }
        }
      }
    } finally {
      stdin?.close();
    }
    const result = await troupe.runs.getResult(user, run.id);
    console.log(
      `\n\nrun ${result.run_id}: ${result.status}${result.error ? ` (${result.error.type}: ${result.error.message})` : ''}`,
    );
    return result.status === 'completed' ? 0 : 1;
  });
}

/**
 * A retry or fallback on the terminal: text already written cannot be taken back, so the line says that
 * what the failed attempt streamed above is void.
 */
function modelCallLine(event: RunEventOf<'model_retry' | 'model_fallback'>): string {
  const { payload } = event;
  const status = payload.status !== undefined ? `, HTTP ${payload.status}` : '';
  const why = `${payload.reason}${status}`;
  const dropped = payload.discarded_chars > 0 ? '; the text above is discarded' : '';
  if (event.type === 'model_fallback')
    return `[model ${event.payload.from} failed (${why}): ${event.payload.to} takes over${dropped}]`;
  const seconds = (event.payload.wait_ms / 1000).toFixed(1);
  return `[model ${event.payload.model} failed (${why}): retry ${event.payload.attempt} of ${event.payload.max_retries} in ${seconds} s${dropped}]`;
}
