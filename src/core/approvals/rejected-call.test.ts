import { describe, expect, it } from 'vitest';
import { refusalSchema } from '../records/refusal.js';
import { rejectedCall } from './rejected-call.js';

describe('rejectedCall', () => {
  it("tells the model the user's reason and carries it as data", () => {
    const result = rejectedCall('write_file', 'not on Fridays');
    expect(result.output).toBe(
      'The user rejected this write_file call: not on Fridays. Do not retry it unchanged; ask or take another way.',
    );
    expect(result.isError).toBe(true);
    expect(refusalSchema.parse(result.refusal)).toEqual({
      code: 'approval_rejected',
      reason: 'The user rejected this write_file call: not on Fridays',
      tool: 'write_file',
      comment: 'not on Fridays',
    });
  });

  it('without a comment has no reason beyond the rejection', () => {
    const result = rejectedCall('execute', null);
    expect(result.output).toBe(
      'The user rejected this execute call. Do not retry it unchanged; ask or take another way.',
    );
    expect(result.refusal).toMatchObject({ code: 'approval_rejected', tool: 'execute', comment: null });
  });
});
