/**
 * A per-minute limit as a token bucket (the same arithmetic as the Redis adapter's script): it holds up to
 * `perMinute`, refills at `perMinute` a minute, and a call takes what it needs. Settling a call's real size
 * afterwards may take it below zero (a debt the refill pays back).
 */
export interface TokenBucket {
  level: number;
  updatedAt: number;
}

export function fullBucket(perMinute: number, now: number): TokenBucket {
  return { level: perMinute, updatedAt: now };
}

export function refilled(bucket: TokenBucket, perMinute: number, now: number): TokenBucket {
  const elapsed = Math.max(0, now - bucket.updatedAt);
  return { level: Math.min(perMinute, bucket.level + (elapsed * perMinute) / 60_000), updatedAt: now };
}

/** What a call of `amount` takes: never more than the bucket holds when full, or it could never pass. */
export function chargeOf(amount: number, perMinute: number): number {
  return Math.min(Math.max(0, amount), perMinute);
}

/** Milliseconds until the bucket holds `amount` (0 when it does now). */
export function msUntil(bucket: TokenBucket, amount: number, perMinute: number): number {
  const missing = amount - bucket.level;
  return missing <= 0 ? 0 : Math.ceil((missing * 60_000) / perMinute);
}
