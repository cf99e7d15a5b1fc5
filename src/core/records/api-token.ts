export interface ApiToken {
  id: string;
  user_id: string;
  name: string;
  /** First characters of the secret, kept so a user can tell tokens apart; never enough to use. */
  prefix: string;
  /** SHA-256 of the secret; the secret itself is shown once and never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
