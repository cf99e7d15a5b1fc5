import { EventType, type BaseEvent } from '@ag-ui/core';
import type { RunEvent } from '../../core/records/run-event.js';

/** An AG-UI event as it goes on the wire (the `type` plus the fields of that type). */
export type AgUiEvent = BaseEvent & Record<string, unknown>;

export interface RunProjection {
  /** The AG-UI events one Troupe event of the run stands for (children and waits are the stream's). */
  next(event: RunEvent): AgUiEvent[];
  /** Ends whatever is open (a text message, a step), so the run or subagent can finish. */
  close(): AgUiEvent[];
}

/**
 * The AG-UI projection of one Troupe run's events (README "AG-UI"): text deltas are a streamed assistant
 * message per model turn, tool calls are START/ARGS/END with their result, the model turns are steps
 * (`step N`, opened at their first event, finished by the run's `step` event), a presented artifact is a
 * `troupe.artifact` custom event. A child run's events carry its `subagentRunId`.
 */
export function createRunProjection(runId: string, subagentRunId?: string): RunProjection {
  const attribution = subagentRunId === undefined ? {} : { subagentRunId };
  let openText: string | undefined;
  let openStep: number | undefined;
  let lastStep = 0;

  const event = (type: EventType, fields: Record<string, unknown> = {}): AgUiEvent => ({
    type,
    ...attribution,
    ...fields,
  });

  function closeText(out: AgUiEvent[]): void {
    if (openText === undefined) return;
    out.push(event(EventType.TEXT_MESSAGE_END, { messageId: openText }));
    openText = undefined;
  }

  function closeStep(out: AgUiEvent[]): void {
    closeText(out);
    if (openStep === undefined) return;
    out.push(event(EventType.STEP_FINISHED, { stepName: `step ${openStep}` }));
    lastStep = openStep;
    openStep = undefined;
  }

  function stepTo(out: AgUiEvent[], step: number | undefined): void {
    const wanted = step ?? openStep ?? lastStep + 1;
    if (openStep === wanted) return;
    closeStep(out);
    openStep = wanted;
    out.push(event(EventType.STEP_STARTED, { stepName: `step ${wanted}` }));
  }

  return {
    next(source) {
      const out: AgUiEvent[] = [];
      switch (source.type) {
        case 'message_delta': {
          const text = source.payload.text;
          if (text === '') break;
          // A delta names no step: it belongs to the one open, or opens the next.
          stepTo(out, undefined);
          if (openText === undefined) {
            openText = `${runId}:text:${source.seq}`;
            out.push(event(EventType.TEXT_MESSAGE_START, { messageId: openText, role: 'assistant' }));
          }
          out.push(event(EventType.TEXT_MESSAGE_CONTENT, { messageId: openText, delta: text }));
          break;
        }
        case 'tool_call': {
          stepTo(out, source.payload.step);
          const parentMessageId = openText;
          closeText(out);
          const toolCallId = source.payload.tool_call_id;
          out.push(
            event(EventType.TOOL_CALL_START, {
              toolCallId,
              toolCallName: source.payload.name,
              ...(parentMessageId === undefined ? {} : { parentMessageId }),
            }),
            event(EventType.TOOL_CALL_ARGS, { toolCallId, delta: JSON.stringify(source.payload.args ?? {}) }),
            event(EventType.TOOL_CALL_END, { toolCallId }),
          );
          break;
        }
        case 'tool_result': {
          const toolCallId = source.payload.tool_call_id;
          const output = source.payload.output ?? source.payload.result ?? '';
          out.push(
            event(EventType.TOOL_CALL_RESULT, {
              messageId: `${runId}:tool:${toolCallId}`,
              toolCallId,
              content: typeof output === 'string' ? output : JSON.stringify(output),
              role: 'tool',
            }),
          );
          break;
        }
        case 'step': {
          // A resumed step ends without having been seen open in this stream: open it to close it.
          stepTo(out, source.payload.step);
          closeStep(out);
          break;
        }
        case 'artifact':
          out.push(event(EventType.CUSTOM, { name: 'troupe.artifact', value: source.payload }));
          break;
        case 'model_retry':
        case 'model_fallback':
          // AG-UI cannot take streamed text back: the failed attempt's message ends here, the retry's text
          // comes as a new message, and the custom event says how many characters of the last one are void.
          closeText(out);
          out.push(event(EventType.CUSTOM, { name: `troupe.${source.type}`, value: source.payload }));
          break;
        case 'context_compacted':
        case 'verification':
          out.push(event(EventType.CUSTOM, { name: `troupe.${source.type}`, value: source.payload }));
          break;
        case 'end':
          closeStep(out);
          break;
        case 'metadata':
        case 'error': // always followed by `end`, which carries the outcome
        case 'subagent_update':
        case 'approval_required':
        case 'question_required':
          break;
      }
      return out;
    },
    close() {
      const out: AgUiEvent[] = [];
      closeStep(out);
      return out;
    },
  };
}
