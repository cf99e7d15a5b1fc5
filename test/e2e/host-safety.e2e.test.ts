import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { keptResultPath } from '../../src/runtime/tool-results/keep-result-in-workdir.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateSandboxTools } from '../../src/runtime/tools/execute/locate-sandbox-tools.js';
import { toolResults } from '../helpers/run-helpers.js';
import { copyScenarios } from '../helpers/scenario-dir.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { snapshotTree } from '../helpers/workdir/snapshot-tree.js';

/**
 * Issue 31, played by a member over HTTP against the real server, real bubblewrap and real SQLite: the
 * member's own agent uses `execute` (as designed) to plant links where the server writes next, then makes the
 * server write there. Nothing outside the workdir may change, and no host path may reach the member.
 */
const installed = 'tools' in locateSandboxTools(undefined);
const asRoot = process.getuid?.() === 0;
const CHILD_ANSWER = `The long answer. ${'Every detail matters. '.repeat(100)}`;

let outside: string;
let scenarioDir: string;
let server: TestServer;
let member: (pathname: string, init?: RequestInit) => Promise<Response>;

function attackerScenario(target: { dir: string; file: string }): string {
  const plant = (link: string) => ({
    name: 'execute',
    args: { command: `rm -rf .troupe && ln -s ${link} .troupe` },
  });
  const task = { name: 'task', args: { subagent_slug: 'bigchild', description: 'Answer at length' } };
  return JSON.stringify({
    rules: [
      {
        when: { contains: 'dir link' },
        steps: [{ tool_calls: [plant(target.dir)] }, { tool_calls: [task] }, { text: 'done' }],
      },
      {
        when: { contains: 'file link' },
        steps: [{ tool_calls: [plant(target.file)] }, { tool_calls: [task] }, { text: 'done' }],
      },
      {
        when: { contains: 'plant uploads' },
        steps: [
          {
            tool_calls: [
              {
                name: 'execute',
                args: {
                  command: `mkdir -p uploads && ln -s ${target.file} uploads/report.txt && ln -s ${target.dir} uploads/sub.txt`,
                },
              },
            ],
          },
          { text: 'planted' },
        ],
      },
      {
        when: { contains: 'setuid' },
        steps: [
          {
            tool_calls: [
              { name: 'execute', args: { command: 'cat /bin/bash > uploads/f && chmod 4755 uploads/f' } },
            ],
          },
          { text: '{{last_tool_result}}' },
        ],
      },
      {
        when: { contains: 'cmdline' },
        steps: [
          { tool_calls: [{ name: 'execute', args: { command: "tr '\\0' ' ' < /proc/1/cmdline; pwd" } }] },
          { text: '{{last_tool_result}}' },
        ],
      },
    ],
  });
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function ask(conversationId: string, content: string) {
  const { run } = await json<{ run: { id: string } }>(
    await member(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content }),
    }),
    202,
  );
  return (
    await json<{ run: { id: string; status: string; output: string | null } }>(
      await member(`/api/agent/runs/${run.id}/await?timeout_ms=60000`),
      200,
    )
  ).run;
}

async function newConversation(): Promise<{ id: string; threadId: string; workdir: string }> {
  const { conversation } = await json<{
    conversation: { id: string; project_id: string; thread_id: string };
  }>(
    await member('/api/conversations', { method: 'POST', body: JSON.stringify({ agent_id: 'attacker' }) }),
    201,
  );
  const project = await server.troupe.storage.projects.get(conversation.project_id);
  return { id: conversation.id, threadId: conversation.thread_id, workdir: project?.workdir ?? '' };
}

describe.skipIf(!installed)(
  `host safety against a member's own agent${installed ? '' : ' (skipped: no bubblewrap)'}`,
  () => {
    beforeAll(async () => {
      outside = mkdtempSync(path.join(os.tmpdir(), 'troupe-outside-'));
      mkdirSync(path.join(outside, 'etc'));
      writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
      writeFileSync(path.join(outside, 'etc/hosts'), '127.0.0.1 localhost\n');
      scenarioDir = copyScenarios((_file, scenario) => scenario);
      writeFileSync(
        path.join(scenarioDir, 'attacker.json'),
        attackerScenario({ dir: path.join(outside, 'etc'), file: path.join(outside, 'passwd') }),
      );
      writeFileSync(
        path.join(scenarioDir, 'bigchild.json'),
        JSON.stringify({ rules: [{ steps: [{ text: CHILD_ANSWER }] }] }),
      );
      server = await startTestServer({ scenarioDir });
      const user = await server.troupe.storage.users.create({ name: 'mallory', role: 'member' });
      const { token } = await server.troupe.auth.issueToken(user.id, 'e2e');
      member = (pathname, init = {}) =>
        fetch(`${server.url}${pathname}`, {
          ...init,
          headers: {
            authorization: `Bearer ${token}`,
            ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
          },
        });
      const agent = (body: Record<string, unknown>) =>
        member('/api/agent', { method: 'POST', body: JSON.stringify(body) });
      await json(
        await agent({
          name: 'bigchild',
          slug: 'bigchild',
          backend: 'subagent',
          is_subagent: true,
          config: { model: 'scripted:bigchild' },
        }),
        201,
      );
      await json(
        await agent({
          name: 'attacker',
          slug: 'attacker',
          config: {
            model: 'scripted:attacker',
            tools: ['execute'],
            subagents: ['bigchild'],
            tool_approval_mode: 'always_trust',
            limits: { child_result_cap_bytes: 100 },
          },
        }),
        201,
      );
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      rmSync(outside, { recursive: true, force: true });
      rmSync(scenarioDir, { recursive: true, force: true });
    });

    it.each(['dir link', 'file link'])(
      'the critical attack, .troupe replaced by a %s leading out before a spilled child result, writes nothing outside',
      async (variant) => {
        const before = snapshotTree(outside);
        const conversation = await newConversation();
        const run = await ask(conversation.id, variant);
        expect(run.status).toBe('completed');
        const thread = await server.troupe.storage.messages.list(conversation.threadId);
        // The link was planted for real, by the member's own sandboxed command, before the child answered.
        expect(toolResults(thread, 'execute').map((result) => result.text)).toEqual([
          expect.stringMatching(/^exit code: 0\n/),
        ]);
        expect(toolResults(thread, 'task')[0]?.text).toContain('.troupe/tool-results/');
        expect(snapshotTree(outside)).toEqual(before);
        const [child] = await server.troupe.storage.runs.listChildren(run.id);
        const spilled = path.join(conversation.workdir, keptResultPath(child?.id ?? ''));
        expect(lstatSync(path.join(conversation.workdir, '.troupe')).isDirectory()).toBe(true);
        expect(readFileSync(spilled, 'utf8')).toBe(CHILD_ANSWER.trim());
      },
    );

    it('attachments land beside links planted at their names, never through them', async () => {
      const conversation = await newConversation();
      expect((await ask(conversation.id, 'plant uploads')).status).toBe('completed');
      const before = snapshotTree(outside);
      const form = new FormData();
      form.append('files', new Blob(['mine']), 'report.txt');
      form.append('files', new Blob(['also mine']), 'sub.txt');
      const { attachments } = await json<{ attachments: { path: string }[] }>(
        await member(`/api/conversations/${conversation.id}/attachments`, { method: 'POST', body: form }),
        201,
      );
      expect(attachments.map((attachment) => attachment.path)).toEqual([
        'uploads/report-1.txt',
        'uploads/sub-1.txt',
      ]);
      expect(snapshotTree(outside)).toEqual(before);
    });

    it.runIf(asRoot)('an uploaded file cannot become a root setuid shell', async () => {
      const conversation = await newConversation();
      const form = new FormData();
      form.append('files', new Blob(['an attachment\n']), 'f');
      await json(
        await member(`/api/conversations/${conversation.id}/attachments`, { method: 'POST', body: form }),
        201,
      );
      const run = await ask(conversation.id, 'setuid');
      expect(run.output).toContain('Permission denied');
      const stats = statSync(path.join(conversation.workdir, 'uploads/f'));
      expect([stats.uid, stats.mode & 0o7777]).toEqual([0, 0o644]);
    });

    it('shows the member no host path: not the project API, not the sandbox command line', async () => {
      const conversation = await newConversation();
      const run = await ask(conversation.id, 'cmdline');
      expect(run.output).toContain('--bind-fd');
      expect(run.output).toContain('/workspace');
      const projects = await (await member('/api/projects')).text();
      for (const shown of [run.output ?? '', projects]) {
        expect(shown).not.toContain(conversation.workdir);
        expect(shown).not.toContain(server.dataDir);
      }
      expect(projects).toContain(`"workdir":"workdirs/${path.basename(conversation.workdir)}"`);
    });
  },
);
