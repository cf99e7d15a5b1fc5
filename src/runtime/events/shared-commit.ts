import type { SharedCommitOptions } from '../../core/ports/storage.js';

/**
 * How a run's execution commits (steps, endings, child starts): with the commits of other runs executing at
 * once when they coincide, but never waiting for an event-loop turn to gather them, so a lone run pays
 * nothing for it.
 */
export const SHARED_COMMIT: SharedCommitOptions = { gather: false };
