import { describe, expect, it } from 'vitest';
import { answersOf, messageText } from './session-input.js';

const result = (output: unknown, success = true) =>
  ({ type: 'agent.session.input.tool_result', call_id: 'c', turn_id: 't', success, output }) as Parameters<
    typeof answersOf
  >[0];

describe('answersOf', () => {
  it('reads the answers to ask_user_question from text, a JSON list, {"answers"} or input_text parts', () => {
    expect(answersOf(result('prose'), 0)).toEqual(['prose']);
    expect(answersOf(result('["a", "b"]'), 0)).toEqual(['a', 'b']);
    expect(answersOf(result('{"answers": ["x"]}'), 0)).toEqual(['x']);
    expect(answersOf(result('{"other": 1}'), 0)).toEqual(['{"other": 1}']);
    expect(
      answersOf(
        result([
          { type: 'input_text', text: 'one' },
          { type: 'input_text', text: 'two' },
        ]),
        0,
      ),
    ).toEqual(['one', 'two']);
  });

  it('refuses a failed result, an empty answer and an image, naming the event', () => {
    expect(() => answersOf(result('x', false), 2)).toThrow(/cannot fail/);
    expect(() => answersOf(result('  '), 0)).toThrow(/no text/);
    expect(() => answersOf(result([{ type: 'input_image', image_url: 'u' }]), 1)).toThrow(/input_text/);
  });
});

describe('messageText', () => {
  it('joins the text parts of the messages and refuses images', () => {
    const text = messageText(
      {
        type: 'agent.session.input.message',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
          { role: 'user', content: [{ type: 'input_text', text: 'second' }] },
        ],
      },
      0,
    );
    expect(text).toBe('first\n\nsecond');
    expect(() =>
      messageText(
        {
          type: 'agent.session.input.message',
          input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }],
        },
        3,
      ),
    ).toThrow(/Only input_text/);
  });
});
