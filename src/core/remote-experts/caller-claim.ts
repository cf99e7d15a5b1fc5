import { sign, verify, type KeyObject } from 'node:crypto';

/**
 * Who delegates, as a Troupe server vouches for it to another (README "Remote A2A experts"): a compact JWS
 * (`alg: EdDSA`, Ed25519) over these JWT claims, so any JOSE library can check it too.
 */
export interface CallerClaim {
  /** The delegating server, as the remote's `TROUPE_A2A_TRUSTED_CALLERS` names it. */
  iss: string;
  /** The delegating user's id on the issuer. */
  sub: string;
  name: string;
  /** The remote's origin: a claim for one server is worth nothing to another. */
  aud: string;
  iat: number;
  exp: number;
  /** The delegating run's id (it is also the message id, so a replayed claim replays the same task). */
  jti: string;
}

/** The caller as a remote records it once the claim verified. */
export interface VerifiedCaller {
  issuer: string;
  subject: string;
  name: string;
}

/** How long a claim is good for: it is checked once, when the task is sent. */
export const CLAIM_LIFETIME_SECONDS = 300;
/** Clocks of two servers differ a little. */
const CLOCK_SKEW_SECONDS = 60;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function signCallerClaim(issuer: string, key: KeyObject, claim: Omit<CallerClaim, 'iss'>): string {
  const header = base64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: issuer }));
  const payload = base64url(JSON.stringify({ iss: issuer, ...claim }));
  const signature = sign(null, Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${base64url(signature)}`;
}

function parsePart(part: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a claim against the issuers this server trusts: `undefined` for an issuer it does not know (the
 * claim is then ignored, as if absent), otherwise the caller or why the claim is refused (bad signature,
 * expired, for another server).
 */
export function verifyCallerClaim(
  token: string,
  trusted: ReadonlyMap<string, KeyObject>,
  audience: string,
  nowSeconds: number,
): { caller: VerifiedCaller } | { refused: string } | undefined {
  const [header, payload, signature, extra] = token.split('.');
  const head = parsePart(header);
  const claim = parsePart(payload);
  if (!head || !claim || signature === undefined || extra !== undefined)
    return { refused: 'is not a compact JWS' };
  if (typeof claim.iss !== 'string') return { refused: 'names no issuer' };
  const key = trusted.get(claim.iss);
  if (!key) return undefined;
  if (head.alg !== 'EdDSA') return { refused: 'must be signed with EdDSA (Ed25519)' };
  const signed = verify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'));
  if (!signed) return { refused: `has a signature that does not verify with the key of ${claim.iss}` };
  if (claim.aud !== audience) return { refused: 'is meant for another server (aud)' };
  if (typeof claim.exp !== 'number' || claim.exp + CLOCK_SKEW_SECONDS < nowSeconds)
    return { refused: 'has expired' };
  if (typeof claim.iat === 'number' && claim.iat - CLOCK_SKEW_SECONDS > nowSeconds)
    return { refused: 'is issued in the future' };
  if (typeof claim.sub !== 'string' || claim.sub === '') return { refused: 'names no subject' };
  return {
    caller: {
      issuer: claim.iss,
      subject: claim.sub,
      name: typeof claim.name === 'string' ? claim.name : claim.sub,
    },
  };
}
