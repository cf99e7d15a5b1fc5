import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * `hash_id(prefix, value, length)` from the Yuxi design: prefix + the first `length - prefix.length` hex chars
 * of SHA-256(value). Deterministic, so a replayed tool call maps to the same child thread and request id.
 */
export function hashId(prefix: string, value: string, length = 48): string {
  const hexLength = Math.max(0, length - prefix.length);
  if (hexLength === 0) return prefix;
  const digest = createHash('sha256').update(value, 'utf8').digest('hex');
  return prefix + digest.slice(0, Math.min(hexLength, 64));
}

export function subagentChildThreadId(
  parentThreadId: string,
  subagentSlug: string,
  toolCallId: string,
): string {
  return hashId('subagent_', `${parentThreadId}:${subagentSlug}:${toolCallId}`, 64);
}

/**
 * The request id of a run a tool call starts, so a replayed call (a resumed parent) finds its run instead of
 * starting another. `scope` tells one parent's calls apart beside the tool call id: the child thread for a
 * subagent (docs/subagents.md, docs/subagents.md#ids vectors), `delegate` for a delegation. Stored runs carry these ids: never change
 * the formula.
 */
export function childRunRequestId(parentRunId: string, scope: string, toolCallId: string): string {
  return hashId('req:', `${parentRunId}:${scope}:${toolCallId}`, 48);
}

/** The request id of a run its caller gave none: unique, since the run id is. */
export function ownRequestId(runId: string): string {
  return `req_${runId}`;
}

export type IdPrefix =
  'usr' | 'tok' | 'agt' | 'prj' | 'cnv' | 'thr' | 'rel' | 'wrk' | 'skl' | 'kns' | 'kdc' | 'art' | 'att';

/** Random record ids: a readable kind prefix plus 20 hex chars (80 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

/** Run ids are UUIDv4 strings, as in Yuxi, because clients already treat them as opaque UUIDs. */
export function newRunId(): string {
  return randomUUID();
}
