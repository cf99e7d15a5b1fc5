import type { Conversation } from '../api/types.ts';

export interface ConversationGroup {
  label: 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older';
  conversations: Conversation[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Midnight of the local day `time` falls in. */
function startOfDay(time: number): number {
  const date = new Date(time);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}

/**
 * The list as dated groups by last change, in local days: Today, Yesterday, Previous 7 days (the seven
 * calendar days before today, yesterday apart), Older. The
 * server's order (newest first) is kept inside each group; empty groups are left out.
 */
export function groupConversationsByDate(
  conversations: readonly Conversation[],
  now: number = Date.now(),
): ConversationGroup[] {
  const today = startOfDay(now);
  // Calendar days, not 24 h steps: a daylight-saving change makes one day 23 or 25 hours long.
  const yesterday = startOfDay(today - DAY_MS / 2);
  const weekAgo = startOfDay(today - 6.5 * DAY_MS);
  const groups: ConversationGroup[] = [
    { label: 'Today', conversations: [] },
    { label: 'Yesterday', conversations: [] },
    { label: 'Previous 7 days', conversations: [] },
    { label: 'Older', conversations: [] },
  ];
  for (const conversation of conversations) {
    const time = Date.parse(conversation.updated_at);
    const index = time >= today ? 0 : time >= yesterday ? 1 : time >= weekAgo ? 2 : 3;
    groups[index]?.conversations.push(conversation);
  }
  return groups.filter((group) => group.conversations.length > 0);
}
