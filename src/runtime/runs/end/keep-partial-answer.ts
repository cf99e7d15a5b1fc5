import type { Storage } from '../../../core/ports/storage.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import type { Run, TerminalRunStatus } from '../../../core/records/run.js';
import { partialAnswerMessage, unfinishedModelText } from '../../../core/thread/partial-answer.js';

const EVENT_PAGE = 500;

/**
 * Stores the text a run streamed in a model call it never finished (a cancel, a failure, a lease that
 * expired, a closed execution tree) as an assistant turn marked partial, so what the user saw survives a
 * reload and the next run's model knows what it had said. Called inside the transaction that makes the run
 * terminal, after `closeOpenToolCalls`: a model call only starts once every call of the previous turn has
 * a result, so the partial turn comes after those results, which keeps the thread a valid prompt.
 */
export async function keepPartialAnswer(
  tx: Storage,
  run: Run & { status: TerminalRunStatus },
): Promise<void> {
  // A completed run's last model call finished and was checkpointed: nothing of it can be unfinished.
  if (run.status === 'completed') return;
  let text = '';
  for (let after = 0; ;) {
    const page: RunEvent[] = await tx.events.list(run.id, after, EVENT_PAGE);
    text = unfinishedModelText(page, text);
    if (page.length < EVENT_PAGE) break;
    after = page[page.length - 1]?.seq ?? after;
  }
  // Providers refuse empty or blank text blocks.
  if (text.trim() === '') return;
  const own = (await tx.messages.list(run.thread_id)).filter((entry) => entry.run_id === run.id);
  // The model's turn was checkpointed but the run ended before reporting it: the text is already stored.
  if (own.at(-1)?.message.role === 'assistant') return;
  const step =
    own.reduce(
      (highest, entry) => (entry.message.role === 'assistant' ? Math.max(highest, entry.step) : highest),
      0,
    ) + 1;
  await tx.messages.append(run.thread_id, run.id, step, [partialAnswerMessage(text, run.status)]);
}
