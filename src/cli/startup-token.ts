import type { User } from '../core/records/user.js';
import type { Troupe } from '../create-troupe.js';

export const STARTUP_TOKEN_NAME = 'startup';

/**
 * Issues a fresh token for the demo admin and revokes the one from the previous start: tokens are stored
 * hashed, so a restart cannot show the old secret again, and old startup tokens should not pile up.
 */
export async function issueStartupToken(troupe: Troupe, user: User): Promise<string> {
  await troupe.auth.revokeTokensByName(user.id, STARTUP_TOKEN_NAME);
  const { token } = await troupe.auth.issueToken(user.id, STARTUP_TOKEN_NAME);
  return token;
}
