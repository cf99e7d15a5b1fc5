import net from 'node:net';
import type { TestServer } from '../../helpers/start-test-server.js';

/**
 * Malformed input against every operation that `/api/openapi.json` lists, over real HTTP: missing and
 * invalid tokens, bad path ids, bad query values, malformed / wrongly typed / oversized / deeply nested
 * bodies, wrong media types and methods. The only expectation is the sweep's point: no 5xx, no dropped
 * connection, no hang.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface JsonSchema {
  type?: string | string[];
  enum?: Json[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  minimum?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

export interface SweepFinding {
  method: string;
  path: string;
  variant: string;
  status: number | 'network error' | 'timeout';
  body: string;
}

export interface SweepReport {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  /** Every 5xx, dropped connection or timeout: should be empty. */
  findings: SweepFinding[];
  /** Requests re-sent once after a network error (a keep-alive socket the server closed as it was reused). */
  retried: number;
}

export interface SweepOptions {
  /** The server's body limit (`maxBodyBytes`), to build bodies just over it. */
  maxBodyBytes: number;
  /** Real ids to put in path params for variants whose fault is elsewhere (body, query). */
  realIds: (path: string, param: string) => string | undefined;
  /** Fewer variants per operation (for `npm test`). */
  smoke?: boolean;
  concurrency?: number;
  timeoutMs?: number;
}

interface Probe {
  variant: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  /** Sent as is over a plain socket (requests fetch refuses to make); only the first response counts. */
  raw?: string;
}

const FAKE_ID = 'does-not-exist-0';

const BAD_IDS: [string, string][] = [
  ['too long id', 'x'.repeat(201)],
  ['very long id', 'y'.repeat(6000)],
  ['NUL', '%00'],
  ['path traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['SQL', "'%20OR%201%3D1%20--"],
  ['emoji', '%F0%9F%92%A9'],
  ['broken percent-encoding', '%ZZ%E0%A4%A'],
  ['lone surrogate', '%ED%A0%80'],
  ['space', '%20'],
  ['null word', 'null'],
  ['negative number', '-1'],
];

const BAD_QUERY_VALUES: [string, string][] = [
  ['word', 'abc'],
  ['negative', '-1'],
  ['huge', '99999999999999999999999'],
  ['exponent', '1e999'],
  ['fraction', '1.5'],
  ['empty', ''],
  ['broken percent-encoding', '%ZZ'],
  ['NUL', '%00'],
  ['long', 'q'.repeat(5000)],
];

const MALFORMED_JSON: [string, string][] = [
  ['truncated object', '{'],
  ['truncated member', '{"a":'],
  ['bare word', 'nul'],
  ['trailing comma', '{"a":1,}'],
  ['single quotes', "{'a':1}"],
  ['empty', ''],
  ['whitespace', '   '],
  ['two documents', '{}{}'],
];

function schemaType(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null');
  if (schema.type) return schema.type;
  const first = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  return first ? schemaType(first) : undefined;
}

/** A plausible valid value (best effort: patterns are not solved). */
function sample(schema: JsonSchema | undefined, depth = 0): Json {
  if (!schema || depth > 4) return null;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0] ?? null;
  switch (schemaType(schema) ?? 'unknown') {
    case 'string':
      return 'sample'.padEnd(schema.minLength ?? 0, 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const value: Record<string, Json> = {};
      for (const name of schema.required ?? []) value[name] = sample(schema.properties?.[name], depth + 1);
      return value;
    }
    default:
      return 'sample';
  }
}

/** Values of the wrong type for a property of this schema. */
function wrongValues(schema: JsonSchema | undefined): [string, Json][] {
  const type = schemaType(schema);
  const values: [string, Json][] = [
    ['null', null],
    ['object', { nested: { deeper: [1, 2, 3] } }],
    ['array', [1, 'two', null]],
  ];
  if (type !== 'string') values.push(['string', 'not the right type']);
  if (type !== 'number' && type !== 'integer') values.push(['number', 12345.678]);
  if (type !== 'boolean') values.push(['boolean', true]);
  if (type === 'string')
    values.push(
      ['huge string', 'z'.repeat(300_000)],
      ['control chars', '\u0000\u0007\u001b[31m'],
      ['lone surrogate', '\ud800'],
    );
  if (type === 'integer' || type === 'number')
    values.push(['NaN-like', 'NaN'], ['huge number', 1e308], ['negative', -1], ['fraction', 0.5]);
  if (schema?.enum) values.push(['not in enum', 'definitely-not-an-option']);
  return values;
}

function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  const chunk = 64 * 1024;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function buildProbes(
  server: TestServer,
  method: string,
  path: string,
  operation: Operation,
  options: SweepOptions,
): Probe[] {
  const probes: Probe[] = [];
  const params = operation.parameters ?? [];
  const pathParams = params.filter((param) => param.in === 'path');
  const queryParams = params.filter((param) => param.in === 'query');
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
  const upper = method.toUpperCase();
  const readOnly = upper === 'GET';
  const auth = { authorization: `Bearer ${server.token}` };
  const json = { 'content-type': 'application/json' };
  const fill = (ids: (param: string) => string) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) => ids(name));
  const fakePath = fill(() => FAKE_ID);
  // Real ids only where nothing can happen: reads, or requests whose body or query is invalid anyway.
  const realPath = fill((name) => options.realIds(path, name) ?? FAKE_ID);
  const add = (variant: string, url: string, headers: Record<string, string>, body?: Probe['body']) =>
    probes.push({ variant, method: upper, url, headers, ...(body !== undefined ? { body } : {}) });
  const validBody = bodySchema ? JSON.stringify(sample(bodySchema)) : undefined;
  const target = readOnly ? realPath : fakePath;

  // Tokens.
  if (!isPublic) {
    add('no token', target, {});
    add('garbage token', target, { authorization: 'Bearer garbage' });
    add('unknown trp_ token', target, {
      authorization: 'Bearer trp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    add('Basic scheme', target, { authorization: 'Basic dXNlcjpwYXNz' });
    add('Bearer without token', target, { authorization: 'Bearer ' });
    add('latin-1 token', target, { authorization: 'Bearer trp_\u00e9\u00e8\u00ff' });
    if (!options.smoke) add('8 KiB token', target, { authorization: `Bearer trp_${'k'.repeat(8192)}` });
  }

  // Bad ids, one path parameter at a time.
  for (const param of pathParams) {
    for (const [label, bad] of options.smoke ? BAD_IDS.slice(0, 6) : BAD_IDS) {
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        name === param.name ? bad : (options.realIds(path, name) ?? FAKE_ID),
      );
      add(
        `path ${param.name}: ${label}`,
        url,
        { ...auth, ...(bodySchema ? json : {}) },
        bodySchema && !readOnly ? validBody : undefined,
      );
    }
  }

  // Bad query values, one parameter at a time; and junk query strings anywhere.
  const queryBase = readOnly || bodySchema ? realPath : fakePath;
  for (const param of queryParams) {
    for (const [label, bad] of options.smoke ? BAD_QUERY_VALUES.slice(0, 4) : BAD_QUERY_VALUES) {
      add(
        `query ${param.name}: ${label}`,
        `${queryBase}?${param.name}=${bad}`,
        { ...auth, ...(bodySchema ? json : {}) },
        bodySchema ? '{"__invalid__":' : undefined,
      );
    }
    add(
      `query ${param.name}: repeated`,
      `${queryBase}?${param.name}=1&${param.name}=2`,
      { ...auth, ...(bodySchema ? json : {}) },
      bodySchema ? '[]' : undefined,
    );
  }
  add('junk query string', `${target}?%ZZ=%&&=&a[b]=c`, auth);

  // Bodies.
  if (bodySchema) {
    for (const [label, text] of options.smoke ? MALFORMED_JSON.slice(0, 3) : MALFORMED_JSON)
      add(`body: ${label}`, realPath, { ...auth, ...json }, text);
    for (const value of ['[]', '42', '"text"', 'null', 'true'])
      add(`body: top-level ${value}`, realPath, { ...auth, ...json }, value);
    add(
      'body: invalid UTF-8',
      realPath,
      { ...auth, ...json },
      new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    );
    add('body: unknown field only', realPath, { ...auth, ...json }, '{"surely_unknown_field":1}');
    add('body: text/plain', realPath, { ...auth, 'content-type': 'text/plain' }, validBody);
    add('body: no content-type', realPath, auth, validBody);
    add(
      'body: form encoded',
      realPath,
      { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      'a=1&b=2',
    );
    add(
      'body: charset parameter',
      realPath,
      { ...auth, 'content-type': 'application/json; charset=latin1' },
      '{"__invalid__":',
    );
    const big = new TextEncoder().encode(
      JSON.stringify({ padding: 'p'.repeat(options.maxBodyBytes + 1024) }),
    );
    add('body: over the limit (content-length)', realPath, { ...auth, ...json }, big);
    if (!options.smoke) {
      add('body: over the limit (chunked, no length)', realPath, { ...auth, ...json }, streamOf(big));
      probes.push({
        variant: 'body: content-length shorter than the body (raw socket)',
        method: upper,
        url: realPath,
        headers: {},
        raw: `${upper} ${realPath} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":1,"b":2}`,
      });
      add('body: 5,000 nested arrays', realPath, { ...auth, ...json }, nestedArrays(5_000));
      add('body: 200,000 nested arrays', realPath, { ...auth, ...json }, nestedArrays(200_000));
      add(
        'body: 200,000 nested objects',
        realPath,
        { ...auth, ...json },
        '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000),
      );
    }
    // Wrong types, one property at a time, in an otherwise plausible body.
    const base = sample(bodySchema);
    const baseObject = base !== null && typeof base === 'object' && !Array.isArray(base) ? base : {};
    for (const [name, property] of Object.entries(bodySchema.properties ?? {})) {
      const values = wrongValues(property);
      for (const [label, value] of options.smoke ? values.slice(0, 3) : values) {
        add(
          `body ${name}: ${label}`,
          realPath,
          { ...auth, ...json },
          JSON.stringify({ ...baseObject, [name]: value }),
        );
      }
    }
  } else if (!readOnly) {
    // Operations without a body must not trip over one.
    add('unexpected JSON body', fakePath, { ...auth, ...json }, '{"unexpected":true}');
    add('unexpected malformed body', fakePath, { ...auth, ...json }, '{');
  }
  if (operation.requestBody?.content?.['multipart/form-data']) addMultipartProbes(probes, upper, realPath, fakePath, server.token, options);
  add('wrong content-type header on read', target, { ...auth, 'content-type': 'application/xml' });
  return probes;
}

const BOUNDARY = 'sweep-boundary';

function filePart(field: string, fileName: string, content: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`;
}

/**
 * Uploads (`multipart/form-data`): broken framing, wrong fields, hostile file names, declared sizes far over
 * the limit. Malformed bodies go to the real conversation (they can change nothing); well-formed ones with
 * hostile names to a missing one.
 */
function addMultipartProbes(
  probes: Probe[],
  method: string,
  realPath: string,
  fakePath: string,
  token: string,
  options: SweepOptions,
): void {
  const auth = { authorization: `Bearer ${token}` };
  const multipart = { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const add = (variant: string, url: string, headers: Record<string, string>, body?: string) =>
    probes.push({ variant, method, url, headers, ...(body !== undefined ? { body } : {}) });
  const end = `--${BOUNDARY}--\r\n`;
  add('multipart: no content-type', realPath, auth, filePart('files', 'a.txt', 'x') + end);
  add('multipart: no boundary', realPath, { ...auth, 'content-type': 'multipart/form-data' }, filePart('files', 'a.txt', 'x') + end);
  add('multipart: garbage', realPath, multipart, 'this is not multipart at all');
  add('multipart: truncated part', realPath, multipart, filePart('files', 'a.txt', 'x').slice(0, 60));
  add('multipart: empty form', realPath, multipart, end);
  add('multipart: text field, not a file', realPath, multipart, `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"\r\n\r\ntext\r\n${end}`);
  add('multipart: unknown field', realPath, multipart, filePart('surprise', 'a.txt', 'x') + end);
  add('multipart: wrong boundary', realPath, { ...auth, 'content-type': 'multipart/form-data; boundary=other' }, filePart('files', 'a.txt', 'x') + end);
  add('multipart: traversal file name', fakePath, multipart, filePart('files', '../../../etc/passwd', 'x') + end);
  add('multipart: control characters in file name', fakePath, multipart, filePart('files', '\u0001\u001b[31m.txt', 'x') + end);
  if (options.smoke) return;
  add('multipart: 2,000 empty parts', realPath, multipart, `--${BOUNDARY}\r\nContent-Disposition: form-data; name="surprise"\r\n\r\n\r\n`.repeat(2_000) + end);
  probes.push({
    variant: 'multipart: over the limit (declared content-length, raw socket)',
    method,
    url: realPath,
    headers: {},
    raw: `${method} ${realPath} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n${end}`,
  });
}

/** Writes `raw` on a fresh connection and parses the status of the first response. */
function sendRaw(
  server: TestServer,
  raw: string,
  timeoutMs: number,
): Promise<{ status: SweepFinding['status']; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () =>
      socket.end(raw),
    );
    const finish = (result: { status: SweepFinding['status']; body: string }) => {
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

async function send(
  server: TestServer,
  probe: Probe,
  timeoutMs: number,
): Promise<{ status: SweepFinding['status']; body: string }> {
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

/** Statuses the server may legitimately answer malformed input with when it closes the connection early. */
function acceptable(probe: Probe, result: { status: SweepFinding['status'] }): boolean {
  if (typeof result.status === 'number') return result.status < 500;
  // An oversized body may be refused before the client finished sending it; the connection then closes.
  return result.status === 'network error' && probe.variant.startsWith('body: over the limit');
}

export async function sweepEndpoints(server: TestServer, options: SweepOptions): Promise<SweepReport> {
  const documentResponse = await fetch(`${server.url}/api/openapi.json`);
  const document = (await documentResponse.json()) as { paths: Record<string, Record<string, Operation>> };
  const jobs: { path: string; probe: Probe }[] = [];
  let operations = 0;
  for (const [path, methods] of Object.entries(document.paths)) {
    const declared = Object.keys(methods).map((method) => method.toUpperCase());
    for (const [method, operation] of Object.entries(methods)) {
      operations += 1;
      for (const probe of buildProbes(server, method, path, operation, options)) jobs.push({ path, probe });
    }
    // A method the path does not serve.
    const undeclared = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((method) => !declared.includes(method));
    if (undeclared) {
      jobs.push({
        path,
        probe: {
          variant: `undeclared method ${undeclared}`,
          method: undeclared,
          url: path.replace(/\{[^}]+\}/g, FAKE_ID),
          headers: { authorization: `Bearer ${server.token}` },
        },
      });
    }
  }

  const byStatus: Record<string, number> = {};
  const findings: SweepFinding[] = [];
  let next = 0;
  let retried = 0;
  const worker = async () => {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      let result = await send(server, job.probe, options.timeoutMs ?? 15_000);
      // A pooled keep-alive socket can be closed by the server just as it is reused; a real fault repeats.
      if (
        result.status === 'network error' &&
        !acceptable(job.probe, result) &&
        !(job.probe.body instanceof ReadableStream)
      ) {
        retried += 1;
        result = await send(server, job.probe, options.timeoutMs ?? 15_000);
      }
      byStatus[String(result.status)] = (byStatus[String(result.status)] ?? 0) + 1;
      if (!acceptable(job.probe, result)) {
        findings.push({
          method: job.probe.method,
          path: job.path,
          variant: job.probe.variant,
          status: result.status,
          body: result.body,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return { operations, requests: jobs.length, byStatus, findings, retried };
}
