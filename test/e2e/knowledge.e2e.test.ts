import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KNOWLEDGE_LIMITS } from '../../src/runtime/knowledge/knowledge-limits.js';
import { expectError } from '../helpers/http/expect-error.js';
import { makePdf, makePdfWithStream, zerosZlibStream } from '../helpers/knowledge/make-pdf.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

interface Source {
  id: string;
  name: string;
  document_count: number;
}

// The first upload in a process starts the extraction worker thread (pdf.js; tsx from the sources).
describe('knowledge sources over real HTTP: the demo handbook', { timeout: 60_000 }, () => {
  it('the researcher searches its knowledge source and cites the passage it found', async () => {
    const { conversationId, runId } = await server.chat(
      'Research the knowledge base: how do we rotate API tokens?',
    );
    const result = (await (await server.api(`/api/agent/runs/${runId}/await?timeout_ms=60000`)).json()) as {
      run: { status: string; output: string };
    };
    expect(result.run.status).toBe('completed');
    // The main agent quotes the researcher, who quotes the best passage with its citation.
    expect(result.run.output).toContain('Here is what the researcher found');
    expect(result.run.output).toContain('[1] ops-handbook/security.md § Security > API tokens');
    expect(result.run.output).toContain('troupe tokens revoke');

    const panel = (await (await server.api(`/api/conversations/${conversationId}/subagents`)).json()) as {
      subagents: { slug: string; child_thread_id: string }[];
    };
    const researcher = panel.subagents.find((entry) => entry.slug === 'researcher');
    expect(researcher).toBeDefined();
    const messages = await server.troupe.storage.messages.list(researcher?.child_thread_id ?? '');
    const calls = messages.flatMap((entry) =>
      entry.message.role === 'assistant' && typeof entry.message.content !== 'string'
        ? entry.message.content.filter((part) => part.type === 'tool-call').map((part) => part.toolName)
        : [],
    );
    expect(calls).toEqual(['knowledge_search']);
  });

  it('lists the seeded source, uploads a PDF and finds it by page', async () => {
    const { sources } = (await (await server.api('/api/knowledge')).json()) as { sources: Source[] };
    const handbook = sources.find((source) => source.name === 'ops-handbook');
    expect(handbook?.document_count).toBe(4);

    const form = new FormData();
    form.append(
      'file',
      new Blob([Buffer.from(makePdf([['Cover page'], ['The escalation matrix lists the duty managers.']]))], {
        type: 'application/pdf',
      }),
      'escalation.pdf',
    );
    const upload = await fetch(`${server.url}/api/knowledge/ops-handbook/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    const search = (await (
      await server.api('/api/knowledge/ops-handbook/search', {
        method: 'POST',
        body: JSON.stringify({ query: 'escalation matrix', top_k: 1 }),
      })
    ).json()) as { results: { document_name: string; location: { page: number | null } }[] };
    expect(search.results.map((hit) => [hit.document_name, hit.location.page])).toEqual([
      ['escalation.pdf', 2],
    ]);
  });
});

// The first upload in a process starts the extraction worker thread (pdf.js; tsx from the sources).
describe('knowledge uploads over real HTTP: a decompression bomb', { timeout: 60_000 }, () => {
  it('is refused with 413 document_too_large while another user is answered, memory bounded', async () => {
    const mallory = await server.troupe.storage.users.create({ name: 'mallory', role: 'member' });
    const { token } = await server.troupe.auth.issueToken(mallory.id, 'e2e');
    const asMallory = (pathname: string, init: RequestInit = {}) =>
      fetch(`${server.url}${pathname}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.headers as Record<string, string> | undefined),
        },
      });
    const created = await asMallory('/api/knowledge', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'mallory-docs' }),
    });
    expect(created.status).toBe(201);

    // 512 MiB of zeros in one content stream: about 0.5 MiB on the wire.
    const bomb = makePdfWithStream(zerosZlibStream(512));
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(bomb)], { type: 'application/pdf' }), 'bomb.pdf');
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    let settled = false;
    const upload = asMallory('/api/knowledge/mallory-docs/documents', { method: 'POST', body: form }).finally(
      () => {
        settled = true;
      },
    );
    // The other user's requests, one after another, for as long as the upload is being read.
    let answeredDuringUpload = 0;
    while (!settled) {
      const me = await server.api('/api/me');
      expect(me.status).toBe(200);
      await me.arrayBuffer();
      if (!settled) answeredDuringUpload += 1;
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }
    const refused = await expectError(await upload, 413, 'document_too_large');
    expect(refused.error.message).toBe(
      'bomb.pdf: its compressed streams expand to more than 256 MiB; the limit for one PDF',
    );
    // On the main thread, pdf.js held the event loop for the whole inflation: nobody else was answered.
    expect(answeredDuringUpload).toBeGreaterThanOrEqual(3);
    expect(peakRss - rssBefore).toBeLessThan(DEFAULT_KNOWLEDGE_LIMITS.extractMemoryBytes);

    const next = new FormData();
    next.append(
      'file',
      new Blob([Buffer.from(makePdf([['Duty rota']]))], { type: 'application/pdf' }),
      'rota.pdf',
    );
    const accepted = await asMallory('/api/knowledge/mallory-docs/documents', { method: 'POST', body: next });
    expect(accepted.status).toBe(201);
  });
});
