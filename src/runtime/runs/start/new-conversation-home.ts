import { newId } from '../../../core/ids.js';
import type { NewConversation, Storage } from '../../../core/ports/storage.js';
import type { ChildHome } from './child-run-spec.js';

/**
 * A child's home in a conversation its start creates: the insert is sent, not awaited, so the child's run row
 * leaves with it (`ChildHome.rows`; docs/scale-out.md, "What scales how").
 */
export function newConversationHome(tx: Storage, conversation: NewConversation): ChildHome {
  const conversationId = newId('cnv');
  const created = tx.conversations.create(conversation, conversationId);
  return { conversationId, rows: created.then((row) => ({ created: row })) };
}
