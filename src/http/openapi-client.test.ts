import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/helpers/http/create-test-context.js';
import { json } from '../../test/helpers/http/expect-error.js';

interface Operation {
  security: unknown[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  'x-troupe-access'?: string;
}
interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

let ctx: TestContext;
let document: Document;
beforeAll(async () => {
  ctx = await createTestContext();
  document = await json<Document>(await ctx.request('GET', '/api/openapi.json'), 200);
});
afterAll(async () => {
  await ctx.close();
});

const operations = () =>
  Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${route}`,
      operation,
    })),
  );

describe('the OpenAPI document is complete (issue 17)', () => {
  it('documents every success body, every operation’s 4xx answers and where the API is served', () => {
    expect(document.servers).toEqual([{ url: '/' }]);
    const missing: string[] = [];
    for (const { name, operation } of operations()) {
      const [status, success] =
        Object.entries(operation.responses).find(([code]) => code.startsWith('2')) ?? [];
      if (!status || !success) {
        missing.push(`${name}: no 2xx`);
        continue;
      }
      const json = success.content?.['application/json'];
      if (status !== '204' && json && Object.keys(json.schema ?? {}).length === 0)
        missing.push(`${name}: empty body schema`);
      if (operation.security.length > 0 && !operation.responses['401']) missing.push(`${name}: no 401`);
      if (operation['x-troupe-access'] === 'admin' && !operation.responses['403'])
        missing.push(`${name}: no 403`);
      if (name.includes('{') && !operation.responses['404']) missing.push(`${name}: no 404`);
      for (const [code, response] of Object.entries(operation.responses)) {
        if (!code.startsWith('4')) continue;
        expect(response.content?.['application/json']?.schema).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
    expect(missing).toEqual([]);
    const events = document.paths['/api/agent/runs/{id}/events']?.get;
    expect(events?.parameters).toContainEqual(
      expect.objectContaining({ name: 'Last-Event-ID', in: 'header' }),
    );
    expect(Object.keys(events?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(document.paths['/api/conversations/{id}/messages']?.post?.responses['409']).toBeDefined();
    expect(document.components.schemas.Run).toMatchObject({ type: 'object' });
  });

  it('generates a TypeScript client that type-checks a program using it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-openapi-'));
    try {
      const types = astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]));
      writeFileSync(path.join(dir, 'api.d.ts'), types);
      const program = [
        "import type { paths, components } from './api';",
        "type RunResponse = paths['/api/agent/runs/{id}']['get']['responses'][200]['content']['application/json'];",
        "type Status = RunResponse['run']['status'];",
        "const finished: Status = 'completed';",
        "type Agents = paths['/api/agent']['get']['responses'][200]['content']['application/json'];",
        'export const slugs = (body: Agents): string[] => body.agents.map((agent) => agent.slug);',
        "type Started = paths['/api/conversations/{id}/messages']['post']['responses'][202]['content']['application/json'];",
        'export const runId = (body: Started): string => body.run.id;',
        "type Busy = paths['/api/conversations/{id}/messages']['post']['responses'][409]['content']['application/json'];",
        'export const code = (body: Busy): string => body.error.code;',
        "export const error: components['schemas']['Error']['error']['code'] = 'run_busy';",
        'export { finished };',
        '// @ts-expect-error: a status the API never sends',
        "export const wrong: Status = 'done';",
      ].join('\n');
      writeFileSync(path.join(dir, 'client.ts'), program);
      const compiled = ts.createProgram([path.join(dir, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        skipLibCheck: false,
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(compiled)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Type-checking the generated client with the TypeScript libs takes a minute or more on a busy machine.
  }, 180_000);
});
