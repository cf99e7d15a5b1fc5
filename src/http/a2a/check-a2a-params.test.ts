import { describe, expect, it } from 'vitest';
import { checkA2AParams, MAX_PARAMS_DEPTH, MAX_PART_CHARS } from './check-a2a-params.js';

const message = (fields: Record<string, unknown>) => ({
  message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...fields },
});

/** `levels` arrays around a 0, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

describe('checkA2AParams', () => {
  it('accepts a well-formed message, in either spelling of its fields', () => {
    expect(checkA2AParams('SendMessage', message({}))).toBeUndefined();
    expect(
      checkA2AParams('SendMessage', { message: { message_id: 'm', context_id: 'c', parts: [] } }),
    ).toBeUndefined();
    expect(checkA2AParams('message/send', message({ kind: 'message' }))).toBeUndefined();
  });

  it.each([
    ['a missing messageId', message({ messageId: undefined }), 'message.messageId'],
    ['an object messageId', message({ messageId: { $gt: '' } }), 'message.messageId'],
    ['a snake_case number', { message: { message_id: 7, parts: [] } }, 'message.message_id'],
    ['a numeric contextId', message({ contextId: 3 }), 'message.contextId'],
    ['an array taskId', message({ taskId: ['t'] }), 'message.taskId'],
    ['a part that is not an object', message({ parts: ['text'] }), 'message.parts[0]'],
    ['a non-string text', message({ parts: [{ text: 5 }] }), 'message.parts[0].text'],
    ['a non-string tenant', { ...message({}), tenant: 1 }, 'tenant'],
    [
      'a text part over the size cap',
      message({ parts: [{ text: 'x' }, { text: 'y'.repeat(MAX_PART_CHARS) }] }),
      'message.parts[1]',
    ],
    [
      'a data part over the size cap',
      message({ parts: [{ data: { rows: 'z'.repeat(MAX_PART_CHARS) } }] }),
      'message.parts[0]',
    ],
  ])('refuses %s, naming %s', (_name, params, field) => {
    expect(checkA2AParams('SendMessage', params)?.field).toBe(field);
  });

  it('refuses a task id that is not a string, for 1.0 and 0.3 names', () => {
    expect(checkA2AParams('GetTask', { id: { $ne: null } })?.field).toBe('id');
    expect(checkA2AParams('tasks/cancel', {})?.field).toBe('id');
    expect(checkA2AParams('GetTask', { id: 'run-1' })).toBeUndefined();
  });

  it('stops at the depth limit and names where it was passed, however deep the value goes', () => {
    const deep = message({ parts: [{ data: nested(50_000) }] });
    const violation = checkA2AParams('SendMessage', deep);
    expect(violation?.field.startsWith('message.parts[0].data[0]')).toBe(true);
    expect(violation?.description).toContain(String(MAX_PARAMS_DEPTH));
    // Just under the limit passes: params → message → parts → [0] → data is 4 levels already.
    expect(
      checkA2AParams('SendMessage', message({ parts: [{ data: nested(MAX_PARAMS_DEPTH - 5) }] })),
    ).toBeUndefined();
  });
});
