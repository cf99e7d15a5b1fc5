/** One malformed request of the sweep. */
export interface Probe {
  variant: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  /** Sent as is over a plain socket (requests fetch refuses to make); only the first response counts. */
  raw?: string;
}

/** A path id no record has, for probes that must not touch real data. */
export const FAKE_ID = 'does-not-exist-0';
