import type { RunServiceApi } from '../runtime/runs/run-service-api.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from './logger.js';
import type { TestContext } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext | undefined;
const cleanups: string[] = [];
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
  for (const dir of cleanups.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        summary: string;
        security: unknown[];
        requestBody?: unknown;
        responses?: Record<string, unknown>;
        parameters?: { name: string; in: string }[];
      }
    >
  >;
}

describe('system routes', () => {
  it('serves /api/health without a token', async () => {
    ctx = await createTestContext();
    expect(await json<{ status: string }>(await ctx.request('GET', '/api/health'), 200)).toMatchObject({
      status: 'ok',
    });
  });

  it('serves /api/ready without a token: the database, bus and queue of the embedded default', async () => {
    ctx = await createTestContext();
    const ready = await ctx.request('GET', '/api/ready');
    expect(await json(ready, 200)).toEqual({
      status: 'ready',
      checks: { storage: 'ok', bus: 'ok', queue: 'ok' },
    });
  });

  it('answers /api/ready with 503 storage_unavailable and Retry-After when the database does not answer', async () => {
    ctx = await createTestContext();
    await ctx.storage.close();
    const response = await ctx.request('GET', '/api/ready');
    expect(response.headers.get('retry-after')).toBe('5');
    const body = await expectError(response, 503, 'storage_unavailable');
    // What is down, and nothing about where or why (no address, no driver message).
    expect(body.error).toEqual({
      code: 'storage_unavailable',
      message: 'Not ready: the database is unavailable',
      details: { checks: { storage: 'unavailable', bus: 'ok', queue: 'ok' }, retry_after_seconds: 5 },
    });
    // Liveness is about the process, not its dependencies.
    expect(await json(await ctx.request('GET', '/api/health'), 200)).toMatchObject({ status: 'ok' });
  });

  it('documents exactly the API routes that are served, with summaries, bodies and security', async () => {
    ctx = await createTestContext();
    const document = await json<OpenApiDocument>(await ctx.request('GET', '/api/openapi.json'), 200);
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths)
      .flatMap(([routePath, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${routePath}`),
      )
      .sort();
    const served = [
      ...new Set(
        ctx.app.routes
          // `/v1/*` is the OpenAI-compatible routes' error-shape middleware and catch-all 404; `ALL` routes under
          // /v1 answer 404 `not_supported` for Agents API resources Troupe does not have (README, OpenAI Agents API).
          .filter(
            (route) =>
              route.path.startsWith('/api/') ||
              route.path.startsWith('/a2a') ||
              route.path.startsWith('/ag-ui/') ||
              route.path === '/.well-known/agent-card.json' ||
              (route.path.startsWith('/v1/') && route.path !== '/v1/*' && route.method !== 'ALL'),
          )
          .map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`),
      ),
    ].sort();
    expect(documented).toEqual(served);
    expect(documented.length).toBeGreaterThanOrEqual(25);
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) expect(operation.summary.length).toBeGreaterThan(0);
    }
    expect(document.paths['/api/health']?.get?.security).toEqual([]);
    expect(document.paths['/api/ready']?.get?.security).toEqual([]);
    expect(document.paths['/api/ready']?.get?.responses).toMatchObject({
      '200': { content: { 'application/json': {} } },
      '503': { description: 'Error: `storage_unavailable`, `bus_unavailable`, `queue_unavailable`' },
    });
    expect(document.paths['/api/agent']?.post?.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/api/agent']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
    });
    expect(
      document.paths['/api/agent/runs/{id}/events']?.get?.parameters?.map((parameter) => parameter.name),
    ).toEqual(['id', 'after_seq', 'Last-Event-ID']);
    // A public card takes an optional token; a protocol stream documents its own event schema.
    expect(document.paths['/a2a/{id}/.well-known/agent-card.json']?.get?.security).toEqual([
      {},
      { bearerAuth: [] },
    ]);
    // Query parameters are typed as what they mean, not as the strings they travel as.
    const parameter = (route: string, name: string) =>
      document.paths[route]?.get?.parameters?.find((entry) => entry.name === name);
    expect(parameter('/api/agent', 'include_subagents')).toMatchObject({
      in: 'query',
      schema: { type: 'boolean', default: false },
    });
    expect(parameter('/api/agent/runs/{id}/await', 'timeout_ms')).toMatchObject({
      schema: { type: 'integer' },
    });
    // A route that answers JSON or SSE documents both; a download names the types it may answer.
    expect(document.paths['/v1/chat/completions']?.post?.responses).toMatchObject({
      '200': {
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/ChatCompletion' } },
          'text/event-stream': { 'x-event-schema': { $ref: '#/components/schemas/ChatCompletionChunk' } },
        },
      },
    });
    expect(document.paths['/a2a/{id}']?.post?.responses).toMatchObject({
      '200': {
        content: {
          'text/event-stream': { 'x-event-schema': { $ref: '#/components/schemas/A2AStreamFrame' } },
        },
      },
    });
    expect(
      Object.keys(
        (
          document.paths['/api/conversations/{id}/artifacts/{artifact_id}/download']?.get?.responses?.[
            '200'
          ] as {
            content: Record<string, unknown>;
          }
        ).content,
      ),
    ).toEqual(
      expect.arrayContaining(['text/markdown; charset=utf-8', 'application/pdf', 'application/octet-stream']),
    );
    expect(document.paths['/ag-ui/{id}']?.post?.responses).toMatchObject({
      '200': {
        content: { 'text/event-stream': { 'x-event-schema': { $ref: '#/components/schemas/AgUiEvent' } } },
      },
    });
  });

  it('answers unknown API routes and wrong methods with 404 route_not_found', async () => {
    ctx = await createTestContext();
    await expectError(await ctx.request('GET', '/api/nothing-here'), 404, 'route_not_found');
    await expectError(await ctx.request('DELETE', '/api/health'), 404, 'route_not_found');
  });

  it('logs unexpected failures and answers a bare internal error', async () => {
    const logged: unknown[] = [];
    const logger: Logger = { error: (...entry) => logged.push(entry), warn: () => undefined };
    // A run service whose every call fails the way a bug would: with no TroupeError.
    const runs = new Proxy({} as RunServiceApi, {
      get: () => () => Promise.reject(new Error('the run store is on fire')),
    });
    ctx = await createTestContext({ logger, runs });
    const user = await ctx.createUser('alice');
    const body = await expectError(
      await ctx.request('GET', '/api/agent/runs/abc', { token: user.token }),
      500,
      'internal',
    );
    expect(body.error.message).toBe('Internal server error');
    expect(logged).toHaveLength(1);
  });
});

describe('console', () => {
  it('explains how to build the console when it is missing', async () => {
    ctx = await createTestContext({ consoleDir: path.join(os.tmpdir(), 'does-not-exist-troupe') });
    const response = await ctx.request('GET', '/');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('console is not built');
    expect(html).toContain('/api/openapi.json');
  });

  it('serves static files with an SPA fallback, never for /api paths', async () => {
    const consoleDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-console-'));
    cleanups.push(consoleDir);
    mkdirSync(path.join(consoleDir, 'assets'));
    writeFileSync(path.join(consoleDir, 'index.html'), '<html>console</html>');
    writeFileSync(path.join(consoleDir, 'assets', 'app.js'), 'console.info(1)');
    ctx = await createTestContext({ consoleDir });
    expect(await (await ctx.request('GET', '/')).text()).toBe('<html>console</html>');
    const script = await ctx.request('GET', '/assets/app.js');
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toBe('console.info(1)');
    expect(await (await ctx.request('GET', '/agents/some-slug')).text()).toBe('<html>console</html>');
    await expectError(await ctx.request('GET', '/api/unknown'), 404, 'route_not_found');
    await expectError(await ctx.request('GET', '/api'), 404, 'route_not_found');
  });
});
