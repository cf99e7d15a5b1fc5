import type { Probe } from './probe.js';
import type { SweepOptions } from './sweep-options.js';

const BOUNDARY = 'sweep-boundary';

function filePart(field: string, fileName: string, content: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`;
}

/**
 * Uploads (`multipart/form-data`): broken framing, wrong fields, hostile file names, declared sizes far over
 * the limit. Malformed bodies go to the real conversation (they can change nothing); well-formed ones with
 * hostile names to a missing one.
 */
export function buildMultipartProbes(
  method: string,
  realPath: string,
  fakePath: string,
  token: string,
  options: SweepOptions,
): Probe[] {
  const probes: Probe[] = [];
  const auth = { authorization: `Bearer ${token}` };
  const multipart = { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const add = (variant: string, url: string, headers: Record<string, string>, body?: string) =>
    probes.push({ variant, method, url, headers, ...(body !== undefined ? { body } : {}) });
  const end = `--${BOUNDARY}--\r\n`;
  add('multipart: no content-type', realPath, auth, filePart('files', 'a.txt', 'x') + end);
  add(
    'multipart: no boundary',
    realPath,
    { ...auth, 'content-type': 'multipart/form-data' },
    filePart('files', 'a.txt', 'x') + end,
  );
  add('multipart: garbage', realPath, multipart, 'this is not multipart at all');
  add('multipart: truncated part', realPath, multipart, filePart('files', 'a.txt', 'x').slice(0, 60));
  add('multipart: empty form', realPath, multipart, end);
  add(
    'multipart: text field, not a file',
    realPath,
    multipart,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"\r\n\r\ntext\r\n${end}`,
  );
  add('multipart: unknown field', realPath, multipart, filePart('surprise', 'a.txt', 'x') + end);
  add(
    'multipart: wrong boundary',
    realPath,
    { ...auth, 'content-type': 'multipart/form-data; boundary=other' },
    filePart('files', 'a.txt', 'x') + end,
  );
  add(
    'multipart: traversal file name',
    fakePath,
    multipart,
    filePart('files', '../../../etc/passwd', 'x') + end,
  );
  add(
    'multipart: control characters in file name',
    fakePath,
    multipart,
    filePart('files', '\u0001\u001b[31m.txt', 'x') + end,
  );
  if (options.smoke) return probes;
  add(
    'multipart: 2,000 empty parts',
    realPath,
    multipart,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="surprise"\r\n\r\n\r\n`.repeat(2_000) + end,
  );
  probes.push({
    variant: 'multipart: over the limit (declared content-length, raw socket)',
    method,
    url: realPath,
    headers: {},
    raw: `${method} ${realPath} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n${end}`,
  });
  return probes;
}
