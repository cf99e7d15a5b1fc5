import type { TestServer } from '../../helpers/start-test-server.js';
import { buildMultipartProbes } from './build-multipart-probes.js';
import { BAD_IDS, BAD_QUERY_VALUES, MALFORMED_JSON, nestedArrays } from './malformed-values.js';
import type { OpenApiOperation } from './openapi-operation.js';
import { FAKE_ID, type Probe } from './probe.js';
import { sampleFromSchema, wrongValuesFor } from './sample-from-schema.js';
import type { SweepOptions } from './sweep-options.js';

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

/** Every malformed variant of one operation: tokens, path ids, query values, bodies, media types. */
export function buildProbes(
  server: TestServer,
  method: string,
  path: string,
  operation: OpenApiOperation,
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
  const validBody = bodySchema ? JSON.stringify(sampleFromSchema(bodySchema)) : undefined;
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
    const base = sampleFromSchema(bodySchema);
    const baseObject = base !== null && typeof base === 'object' && !Array.isArray(base) ? base : {};
    for (const [name, property] of Object.entries(bodySchema.properties ?? {})) {
      const values = wrongValuesFor(property);
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
  if (operation.requestBody?.content?.['multipart/form-data'])
    probes.push(...buildMultipartProbes(upper, realPath, fakePath, server.token, options));
  add('wrong content-type header on read', target, { ...auth, 'content-type': 'application/xml' });
  return probes;
}
