import type { RunEvent } from '../../core/records/run-event.js';

// Both buses hand every listener of a run the same event object, and nothing changes an event once it is
// published: one encoded frame then serves all of the run's SSE clients instead of one per client.
const encoded = new WeakMap<RunEvent, Uint8Array>();

/** A comment line; EventSource ignores it, proxies see traffic. */
export const SSE_HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * The SSE frame of an event (`event`, `data`, `id` lines), as bytes shared by every subscriber of its run.
 * The data is the event as JSON on one line: JSON.stringify escapes CR and LF, the only line breaks of SSE.
 */
export function sseFrameBytes(event: RunEvent): Uint8Array {
  let bytes = encoded.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(event)}\nid: ${event.seq}\n\n`);
    encoded.set(event, bytes);
  }
  return bytes;
}

/** A frame without an id (the client reconnects with the last real seq it saw). */
export function sseUntrackedFrame(type: string, data: unknown): Uint8Array {
  return Buffer.from(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}
