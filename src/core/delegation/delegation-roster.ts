import { isAgentId } from '../agent-access-policy.js';
import type { DelegatableExpert, DelegatableFilter } from '../ports/storage.js';
import type { DelegationPolicy } from '../records/user.js';

/** Mentions beyond this many are ignored: a message cannot blow up the roster query or the prompt. */
export const MAX_MENTIONS = 20;

/**
 * `@slug` (or `@agt_…` id) mentions in a message, first occurrence first. An `@` glued to a word
 * (`bob@analyst.com`) is an e-mail address, not a mention. Matched exactly, never case-folded: slugs are
 * lowercase, so `@Analyst` names no expert — folding it would let whoever owns the slug `analyst` capture
 * a mention written after another expert's display name (docs/delegation.md: display names are never identifiers).
 */
export function extractMentions(message: string): string[] {
  const found: string[] = [];
  for (const match of message.matchAll(/(?<![\w@.-])@([a-z][a-z0-9_-]{1,62})(?![A-Za-z0-9_-])/g)) {
    const ref = (match[1] ?? '').replace(/[-_]+$/, '');
    if (ref.length >= 2 && !found.includes(ref)) found.push(ref);
    if (found.length === MAX_MENTIONS) break;
  }
  return found;
}

/** Splits slugs-or-ids into the two lists the storage query matches on. */
export function splitExpertRefs(refs: readonly string[]): { ids: string[]; slugs: string[] } {
  return { ids: refs.filter((ref) => isAgentId(ref)), slugs: refs.filter((ref) => !isAgentId(ref)) };
}

/**
 * What the roster query asks for: `undefined` means "nothing to ask" (policy none, no mention), otherwise
 * a filter — with no id/slug lists for policy `all`, which already covers every mention.
 */
export function rosterFilter(
  policy: DelegationPolicy,
  whitelist: readonly string[],
  mentions: readonly string[],
  currentAgentId: string,
): DelegatableFilter | undefined {
  if (policy === 'all') return { exclude_id: currentAgentId };
  const refs = [...new Set([...(policy === 'whitelist' ? whitelist : []), ...mentions])];
  if (refs.length === 0) return undefined;
  return { ...splitExpertRefs(refs), exclude_id: currentAgentId };
}

/**
 * How an expert is shown to the model (docs/delegation.md): `slug: coalesce(delegation_brief, description, '')`. The
 * display name is left out on purpose: names are not unique, and a name shown next to the identifier invites
 * the model to pass it, or to confuse it with another expert's slug.
 */
export function formatRosterEntry(expert: DelegatableExpert): string {
  return `${expert.agent.slug}: ${expert.brief}`;
}

/** One roster line, led by the slug the `delegate` tool takes. */
export function rosterLine(expert: DelegatableExpert): string {
  return `- ${formatRosterEntry(expert)}`;
}
