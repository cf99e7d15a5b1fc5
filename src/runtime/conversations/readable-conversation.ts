import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Conversation } from '../../core/records/conversation.js';
import { isAdmin, type Actor } from '../../core/records/user.js';

/**
 * A conversation the actor may read: its owner's, or any for an admin (docs/records-and-access.md). Anyone else's id is
 * `conversation_not_found`, never `forbidden`, so probing learns nothing.
 */
export async function getReadableConversation(
  storage: Storage,
  actor: Actor,
  conversationId: string,
): Promise<Conversation> {
  const conversation = await storage.conversations.get(conversationId);
  if (conversation === undefined || (conversation.user_id !== actor.id && !isAdmin(actor))) {
    throw new TroupeError('conversation_not_found', `Conversation "${conversationId}" not found`);
  }
  return conversation;
}
