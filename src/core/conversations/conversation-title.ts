/** The title of a conversation nobody named: the server replaces it with one from the first message. */
export const DEFAULT_CONVERSATION_TITLE = 'New conversation';

/** Long enough to tell conversations apart in a list, short enough for one line of it. */
export const GENERATED_TITLE_MAX = 60;

/**
 * A title made from a message, deterministically (no model call): its text on one line without Markdown
 * heading, quote or list marks, cut at a word boundary to at most `max` characters with `…`. A word longer
 * than half the room is cut inside rather than leaving almost nothing. Blank text gives `fallback`.
 */
export function conversationTitle(
  text: string,
  max = GENERATED_TITLE_MAX,
  fallback = DEFAULT_CONVERSATION_TITLE,
): string {
  const line = text
    .split('\n')
    .map((part) => part.replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/, '').trim())
    .filter((part) => part !== '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (line === '') return fallback;
  if (line.length <= max) return line;
  const room = Math.max(1, max - 1);
  const head = line.slice(0, room);
  if (/\s/.test(line[room] ?? ' ')) return `${head.trimEnd()}…`;
  const space = head.lastIndexOf(' ');
  return `${space >= room / 2 ? head.slice(0, space).trimEnd() : head}…`;
}
