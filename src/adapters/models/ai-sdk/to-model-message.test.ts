import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { THREAD_OF_EVERY_PART_KIND } from '../../../../test/helpers/models/thread-of-every-part-kind.js';
import { fromModelMessage, toModelMessage } from './to-model-message.js';

describe("the mapping between Troupe's messages and the AI SDK's", () => {
  it('round-trips every role, part kind and tool-result output a thread stores, to the same JSON', () => {
    for (const message of THREAD_OF_EVERY_PART_KIND) {
      const sdk = toModelMessage(message);
      // Today both shapes are the same JSON: a stored row is what the SDK is given.
      expect(sdk).toStrictEqual(message);
      const back = fromModelMessage(sdk);
      expect(back).toStrictEqual(message);
      expect(JSON.stringify(back)).toBe(JSON.stringify(message));
    }
  });

  it('takes the SDK’s binary data and URLs as the text JSON stores', () => {
    const bytes = new Uint8Array([104, 101, 108, 108, 111]);
    const message: ModelMessage = {
      role: 'user',
      content: [
        { type: 'image', image: new URL('https://example.test/cat.png') },
        { type: 'image', image: bytes.buffer, mediaType: 'image/png' },
        { type: 'file', data: bytes, mediaType: 'text/plain' },
      ],
    };
    expect(fromModelMessage(message)).toStrictEqual({
      role: 'user',
      content: [
        { type: 'image', image: 'https://example.test/cat.png' },
        { type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' },
        { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' },
      ],
    });
  });

  it('refuses the SDK parts a thread has no place for', () => {
    const refused: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: { type: 'content', value: [{ type: 'text', text: 'see' }] },
          },
        ],
      },
    ];
    for (const message of refused) {
      expect(() => fromModelMessage(message)).toThrow(
        /A thread cannot store .+ src\/core\/thread\/chat-message\.ts/,
      );
    }
  });
});
