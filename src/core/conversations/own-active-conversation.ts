import { TroupeError } from '../errors.js';
import type { Conversation } from '../records/conversation.js';
import type { Actor } from '../records/user.js';

/**
 * The conversation as `actor` may add to it (a message, a file): their own and still active. Another user's
 * conversation is not found, whoever asks (an admin's read access does not extend to adding); an archived one,
 * or a subagent's or delegation's, takes no new `additions`.
 */
export function ownActiveConversation<C extends Pick<Conversation, 'user_id' | 'status'>>(
  actor: Actor,
  conversationId: string,
  conversation: C | undefined,
  additions: string,
): C {
  if (conversation?.user_id !== actor.id) {
    throw new TroupeError('conversation_not_found', `Conversation "${conversationId}" not found`);
  }
  if (conversation.status !== 'active') {
    throw new TroupeError(
      'conversation_archived',
      `Conversation ${conversationId} is ${conversation.status}; it takes no new ${additions}`,
    );
  }
  return conversation;
}
