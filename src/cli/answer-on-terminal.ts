import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { UserQuestion } from '../core/questions/user-questions.js';

/** Lines of an input stream, one at a time; `undefined` once it has ended. */
export interface LineReader {
  next(): Promise<string | undefined>;
  close(): void;
}

export function lineReader(input: Readable): LineReader {
  const lines = createInterface({ input, terminal: false });
  const buffered: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  lines.on('line', (line) => {
    const reader = waiting.shift();
    if (reader) reader(line);
    else buffered.push(line);
  });
  lines.on('close', () => {
    ended = true;
    for (const reader of waiting.splice(0)) reader(undefined);
  });
  return {
    next() {
      const line = buffered.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => lines.close(),
  };
}

/**
 * `troupe run` answers `ask_user_question` on the terminal: each question with its numbered options; a number
 * picks that option, anything else is the answer itself. Empty lines are asked again. Undefined when the input
 * ends first.
 */
export async function askOnTerminal(
  questions: readonly UserQuestion[],
  lines: LineReader,
  write: (text: string) => void,
): Promise<string[] | undefined> {
  const answers: string[] = [];
  for (const entry of questions) {
    const options = entry.options ?? [];
    write(`\n? ${entry.question}\n`);
    options.forEach((option, index) => write(`  ${index + 1}. ${option}\n`));
    for (;;) {
      write(options.length > 0 ? '> answer (a number or your own words): ' : '> answer: ');
      const line = await lines.next();
      if (line === undefined) return undefined;
      const text = line.trim();
      if (text === '') continue;
      const picked = /^\d+$/.test(text) ? options[Number(text) - 1] : undefined;
      answers.push(picked ?? text);
      break;
    }
  }
  return answers;
}
