import { describe, expect, it } from 'vitest';
import { isRejectionText, rejectionComment, rejectionText } from './rejection-text.js';

describe('rejection text', () => {
  it('carries the comment as the reason, and reads back', () => {
    const text = rejectionText('write_file', 'not on Fridays');
    expect(text).toBe(
      'The user rejected this write_file call: not on Fridays. Do not retry it unchanged; ask or take another way.',
    );
    expect(isRejectionText(text)).toBe(true);
    expect(rejectionComment(text)).toBe('not on Fridays');
  });

  it('without a comment has no reason, and other results are not rejections', () => {
    const text = rejectionText('execute', null);
    expect(text).toBe(
      'The user rejected this execute call. Do not retry it unchanged; ask or take another way.',
    );
    expect(rejectionComment(text)).toBeNull();
    expect(isRejectionText('exit code: 1')).toBe(false);
    expect(isRejectionText({ error: 'The user rejected this' })).toBe(false);
  });
});
