import net from 'node:net';
import type { TestServer } from '../../helpers/start-test-server.js';
import type { Probe } from './probe.js';

/** An HTTP status, or what happened instead of one. */
export type ProbeStatus = number | 'network error' | 'timeout';

/** Writes `raw` on a fresh connection and parses the status of the first response. */
function sendRaw(
  server: TestServer,
  raw: string,
  timeoutMs: number,
): Promise<{ status: ProbeStatus; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () =>
      socket.end(raw),
    );
    const finish = (result: { status: ProbeStatus; body: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ status: 'timeout', body: received.slice(0, 300) }), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', (error) => finish({ status: 'network error', body: error.message }));
    socket.on('close', () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      finish(
        match?.[1]
          ? { status: Number(match[1]), body: received.slice(0, 300) }
          : { status: 'network error', body: `no response: ${received.slice(0, 200)}` },
      );
    });
  });
}

/** Sends one probe, over fetch or (for `raw`) a plain socket; never throws. */
export async function sendProbe(
  server: TestServer,
  probe: Probe,
  timeoutMs: number,
): Promise<{ status: ProbeStatus; body: string }> {
  if (probe.raw !== undefined) return sendRaw(server, probe.raw, timeoutMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const init: RequestInit & { duplex?: 'half' } = {
      method: probe.method,
      headers: probe.headers,
      signal: controller.signal,
    };
    if (probe.body !== undefined) {
      init.body = probe.body;
      if (probe.body instanceof ReadableStream) init.duplex = 'half';
    }
    const response = await fetch(`${server.url}${probe.url}`, init);
    const body = await response.text();
    return { status: response.status, body: body.slice(0, 300) };
  } catch (error) {
    if (controller.signal.aborted) return { status: 'timeout', body: '' };
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return {
      status: 'network error',
      body: `${error instanceof Error ? error.message : String(error)}${cause}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
