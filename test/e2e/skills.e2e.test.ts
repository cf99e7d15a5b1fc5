import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Skill } from '../../src/core/records/skill.js';
import { skillMd, zipOf } from '../helpers/skills/skill-archives.js';
import { toolResults } from '../helpers/run-helpers.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { zeroDelayScenarioDir } from '../load/lib/load-server.js';

let server: TestServer;
const scenarioDir = zeroDelayScenarioDir();
beforeAll(async () => {
  server = await startTestServer({ scenarioDir });
});
afterAll(async () => {
  await server.close();
  rmSync(scenarioDir, { recursive: true, force: true });
});

describe('skills over real HTTP with the demo data', () => {
  it('the demo researcher reads its citation-style skill, projected into the shared workdir', async () => {
    const listed = (await (await server.api('/api/skills')).json()) as { skills: Skill[] };
    expect(listed.skills.map((skill) => [skill.name, skill.visibility, skill.file_count])).toEqual([
      ['citation-style', 'public', 2],
    ]);

    const { conversationId, runId } = await server.chat('research how we cite sources');
    const done = (await (await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`)).json()) as {
      run: { status: string; output: string };
    };
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toContain('Sources');

    const { storage } = server.troupe;
    const [child] = await storage.runs.listChildren(runId);
    expect(child).toMatchObject({ status: 'completed', run_type: 'subagent' });
    const reads = toolResults(await storage.messages.list(child?.thread_id ?? ''), 'read_file');
    expect(reads[0]).toMatchObject({ isError: false });
    expect(reads[0]?.text).toContain('# Citation style');

    const conversation = await storage.conversations.get(conversationId);
    const project = await storage.projects.get(conversation?.project_id ?? '');
    const skillDir = path.join(project?.workdir ?? '', '.skills/citation-style');
    expect(readFileSync(path.join(skillDir, 'SKILL.md'), 'utf8')).toContain('name: citation-style');
    expect(existsSync(path.join(skillDir, 'example.md'))).toBe(true);
  });

  it('uploads a raw zip and a multipart archive, then deletes one', async () => {
    const raw = await server.api('/api/skills?visibility=shared', {
      method: 'POST',
      headers: { 'content-type': 'application/zip' },
      body: zipOf([{ path: 'SKILL.md', content: skillMd('raw-upload') }]),
    });
    expect(raw.status).toBe(201);
    const form = new FormData();
    form.set(
      'file',
      new Blob([zipOf([{ path: 'multi/SKILL.md', content: skillMd('multipart-upload') }])]),
      'multi.zip',
    );
    const multipart = await fetch(`${server.url}/api/skills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: form,
    });
    expect(multipart.status).toBe(201);
    expect((await server.api('/api/skills/raw-upload', { method: 'DELETE' })).status).toBe(204);
    const names = ((await (await server.api('/api/skills')).json()) as { skills: Skill[] }).skills.map(
      (skill) => skill.name,
    );
    expect(names).toEqual(['citation-style', 'multipart-upload']);
  });
});
