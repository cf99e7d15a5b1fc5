import { MAX_UNSENT_SSE_BYTES, type SseSink } from './sse-sink.js';

/** Below this much queued, the backlog reader may fetch its next page. */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * An SSE body as a web ReadableStream, for servers that hand the app no Node response (`app.request` in
 * tests, other runtimes). `onCancel` is told when the reader cancels (the client went away).
 */
export function openWebSseSink(onCancel: () => void): { sink: SseSink; body: ReadableStream<Uint8Array> } {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let pulled: (() => void) | undefined;
  let open = true;
  const wakeReader = (): void => {
    pulled?.();
    pulled = undefined;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (started) => void (controller = started),
      pull: wakeReader,
      cancel: () => {
        open = false;
        wakeReader();
        onCancel();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_BYTES }),
  );
  return {
    body,
    sink: {
      write(bytes) {
        if (!open || !controller) return;
        if ((controller.desiredSize ?? 0) < -MAX_UNSENT_SSE_BYTES) {
          open = false;
          controller.error(new Error('SSE client too far behind'));
          onCancel();
          return;
        }
        controller.enqueue(bytes);
      },
      ready() {
        if (!open || (controller?.desiredSize ?? 0) > 0) return Promise.resolve();
        return new Promise((resolve) => (pulled = resolve));
      },
      end() {
        if (!open) return;
        open = false;
        controller?.close();
        wakeReader();
      },
    },
  };
}
