import { describe, expect, it } from 'vitest';
import { TroupeError } from '../errors.js';
import { ownActiveConversation } from './own-active-conversation.js';

const owner = { id: 'usr_owner', role: 'member' as const };
const admin = { id: 'usr_admin', role: 'admin' as const };

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof TroupeError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ownActiveConversation', () => {
  it("returns the owner's active conversation", () => {
    const conversation = { user_id: owner.id, status: 'active' as const, title: 'x' };
    expect(ownActiveConversation(owner, 'cnv_1', conversation, 'messages')).toBe(conversation);
  });

  it("answers a missing or another user's conversation as not found, to an admin too", () => {
    const theirs = { user_id: owner.id, status: 'active' as const };
    expect(refusal(() => ownActiveConversation(admin, 'cnv_1', theirs, 'messages'))).toEqual({
      code: 'conversation_not_found',
      message: 'Conversation "cnv_1" not found',
    });
    expect(refusal(() => ownActiveConversation(owner, 'cnv_2', undefined, 'files')).code).toBe(
      'conversation_not_found',
    );
  });

  it('refuses additions to a conversation that is not active, naming what it takes no more of', () => {
    for (const status of ['archived', 'subagent', 'delegation'] as const) {
      expect(
        refusal(() => ownActiveConversation(owner, 'cnv_1', { user_id: owner.id, status }, 'files')),
      ).toEqual({
        code: 'conversation_archived',
        message: `Conversation cnv_1 is ${status}; it takes no new files`,
      });
    }
  });
});
