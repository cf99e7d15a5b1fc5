import { z } from 'zod';
import { TroupeError } from '../../core/errors.js';

const MESSAGE_ROLES = ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'] as const;

/** A message of the client's history; only the last one (the user's new message) is read. */
const messageSchema = z.looseObject({
  id: z.string().max(200),
  role: z.enum(MESSAGE_ROLES),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string() })), z.record(z.string(), z.unknown())])
    .optional(),
});

const resumeEntrySchema = z.looseObject({
  interruptId: z
    .string()
    .min(1)
    .max(200)
    .describe('The id of an interrupt of the previous run (a tool call id)'),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional().describe('{"approve": true|false, "comment"?} or {"answers": ["…"]}'),
});

/**
 * AG-UI's `RunAgentInput` (AG-UI 1.0), open to fields it adds as the protocol's own schema is. Tools,
 * context and forwarded props are accepted and not used: the agent runs with its own tools.
 */
export const runAgentInputSchema = z.looseObject({
  threadId: z
    .string()
    .min(1)
    .max(200)
    .describe('A conversation id of yours, or your own thread id (remembered on the conversation it starts)'),
  runId: z.string().min(1).max(190).describe("The run's id; a replay with the same id follows the same run"),
  parentRunId: z.string().max(200).optional(),
  protocolVersion: z.string().max(20).optional(),
  state: z
    .unknown()
    .optional()
    .describe('Echoed in the first STATE_SNAPSHOT, with Troupe state under `troupe`'),
  messages: z.array(messageSchema).max(10_000).describe("Only the last message, the user's, is read"),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(resumeEntrySchema).max(100).optional(),
});

export type RunAgentInputBody = z.output<typeof runAgentInputSchema>;

/** The text of the last message when it is the user's; undefined when the last message is not the user's. */
export function lastUserText(input: RunAgentInputBody): string | undefined {
  const index = input.messages.length - 1;
  const last = input.messages[index];
  if (last?.role !== 'user') return undefined;
  const { content } = last;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const other = content.find((part) => part.type !== 'text');
  if (other) {
    throw new TroupeError(
      'validation_failed',
      `Content parts of type "${other.type}" are not supported; send text`,
      {
        details: {
          issues: [
            {
              path: `body.messages.${index}.content`,
              message: 'only text parts are supported',
              code: 'custom',
            },
          ],
        },
      },
    );
  }
  return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
}
