import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../core/records/run.js';
import type { RunEventType } from '../../core/records/run-event.js';
import { fakeRun } from '../../../test/helpers/a2a/fake-run.js';
import type { ModelCallResult, ToolCallRequest } from './agent-middleware.js';
import { createTokenUsageMiddleware } from './token-usage-middleware.js';

describe('token usage meter', () => {
  it('saves the usage so far before a tool announces a wait for a human, and only then', async () => {
    const log: string[] = [];
    const meter = createTokenUsageMiddleware(null, {
      saveBeforeHumanWait: (usage: TokenUsage) => {
        log.push(`save ${usage.total_tokens}`);
        return Promise.resolve();
      },
    });
    await meter.wrapModelCall?.({} as never, () =>
      Promise.resolve({ usage: { input_tokens: 5, output_tokens: 2 } } as ModelCallResult),
    );
    const request = {
      run: fakeRun(),
      context: {
        emit: (type: RunEventType) => {
          log.push(`emit ${type}`);
          return Promise.resolve();
        },
      },
    } as unknown as ToolCallRequest;
    for (const type of ['tool_result', 'question_required', 'approval_required'] as const) {
      await meter.wrapToolCall?.(request, async (wrapped) => {
        await wrapped.context.emit(type, {});
        return { output: '', isError: false };
      });
    }
    expect(log).toEqual([
      'emit tool_result',
      'save 7',
      'emit question_required',
      'save 7',
      'emit approval_required',
    ]);
  });
});
