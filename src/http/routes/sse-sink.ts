/**
 * Beyond this much unsent data a client is too slow to follow its run live. Dropping the connection bounds
 * what the server holds for it; its EventSource reconnects with Last-Event-ID and loses nothing.
 */
export const MAX_UNSENT_SSE_BYTES = 8 * 1024 * 1024;

/** Where an SSE response's bytes go: straight to the Node socket, or a web ReadableStream elsewhere. */
export interface SseSink {
  /** Sends at once, without waiting for the event loop; drops a client that is too far behind. */
  write(bytes: Uint8Array): void;
  /** Resolves once the client has taken what it was sent, or is gone (paces backlog pages). */
  ready(): Promise<void>;
  end(): void;
}
