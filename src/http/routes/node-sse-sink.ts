import type { ServerResponse } from 'node:http';
import { MAX_UNSENT_SSE_BYTES, type SseSink } from './sse-sink.js';

/**
 * Writes an SSE response straight to Node's response, from the bus publish that produced the frame.
 * `onClose` is told once the connection is gone, whoever closed it.
 */
export function openNodeSseSink(
  outgoing: ServerResponse,
  headers: Record<string, string>,
  onClose: () => void,
): SseSink {
  outgoing.writeHead(200, headers);
  outgoing.flushHeaders();
  outgoing.once('close', onClose);
  let flushQueued = false;
  // Node corks the socket on a response write and uncorks it on process.nextTick, which runs only once the
  // microtask queue is empty: on a loop busy with many runs' promise continuations that is up to hundreds of
  // milliseconds later. A microtask flushes instead: it runs after the continuations already queued (the
  // other members of a group commit publishing theirs), so frames published together leave in one write,
  // and without waiting for the event loop.
  const flush = (): void => {
    flushQueued = false;
    const socket = outgoing.socket;
    while (socket && socket.writableCorked > 0) socket.uncork();
  };
  return {
    write(bytes) {
      if (outgoing.destroyed || outgoing.writableEnded) return;
      if (outgoing.writableLength > MAX_UNSENT_SSE_BYTES) {
        outgoing.destroy();
        return;
      }
      try {
        outgoing.write(bytes);
        if (!flushQueued) {
          flushQueued = true;
          queueMicrotask(flush);
        }
      } catch {
        // This runs inside a bus publish, i.e. inside some run's step: a broken connection is this client's
        // problem only. Dropping it lets the client resume with Last-Event-ID.
        outgoing.destroy();
      }
    },
    ready() {
      if (!outgoing.writableNeedDrain || outgoing.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          outgoing.off('drain', done);
          outgoing.off('close', done);
          resolve();
        };
        outgoing.on('drain', done);
        outgoing.on('close', done);
      });
    },
    end() {
      if (!outgoing.destroyed && !outgoing.writableEnded) outgoing.end();
    },
  };
}
