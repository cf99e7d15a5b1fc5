import { rosterLine } from '../../core/delegation/delegation-roster.js';
import { DELEGATION_PROMPT_HEADING } from '../../core/delegation/delegation-texts.js';
import type { DelegatableExpert } from '../../core/ports/storage.js';

/** The roster as the model reads it, one `- slug: brief` line per expert. */
export function rosterListing(roster: readonly DelegatableExpert[]): string {
  return roster.map(rosterLine).join('\n');
}

/** The system-prompt section of a run whose roster is not empty. */
export function delegationPromptSection(roster: readonly DelegatableExpert[]): string {
  return [
    DELEGATION_PROMPT_HEADING,
    '',
    'You can hand a task to another expert with `delegate(expert, task)`. The expert works for the same user in its own conversation and returns only its final answer.',
    '',
    'How to delegate:',
    '- Delegate only what clearly belongs to one of the experts below; do simple work yourself.',
    '- The expert cannot see this conversation: put the goal, the context it needs and the output you expect in `task`.',
    '- Pass the slug that leads each line below as `expert`, exactly; display names are not identifiers.',
    '- A refusal (not delegatable, not found or access denied, depth limit, cycle) is final for that expert; do not retry it unchanged.',
    '- Never reach other experts through shell, curl, HTTP or a CLI.',
    '',
    'Available experts:',
    '',
    rosterListing(roster),
  ].join('\n');
}
