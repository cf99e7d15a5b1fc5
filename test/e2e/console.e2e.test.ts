/**
 * The web console in a real browser (playwright-core driving Debian's chromium) against the real server
 * composition with the demo data. Skipped, with a message, when no chromium binary is installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newId, newRunId } from '../../src/core/ids.js';
import type { NewRun, RunPatch } from '../../src/core/ports/storage.js';
import type { Conversation } from '../../src/core/records/conversation.js';
import type { Run } from '../../src/core/records/run.js';
import type { RunEventType } from '../../src/core/records/run-event.js';
import { appendAndPublish } from '../../src/runtime/run-emitter.js';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launchChromium,
  screenshot,
  type TestBrowser,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { walkRunTo } from '../helpers/walk-run-to.js';

const executable = chromiumPath();
if (!executable) {
  console.warn(
    `console e2e skipped: no chromium at ${process.env.TROUPE_TEST_CHROMIUM || '/usr/bin/chromium'} ` +
      '(install Debian chromium or set TROUPE_TEST_CHROMIUM)',
  );
}

const E2E_TIMEOUT = 60_000;

let server: TestServer;
let browser: TestBrowser;
let page: Page;
const foreignRequests: string[] = [];

/** `expect.poll` with a timeout that suits a browser on a busy CI machine. */
function poll<T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) {
  return expect.poll(read, { interval: 50, ...options, timeout: options.timeout ?? 10_000 });
}

/** Tests can run alone (`-t`): sign in through localStorage when the login test did not run first. */
async function ensureSignedIn(): Promise<void> {
  if (page.url().startsWith(server.url) && (await page.getByRole('navigation', { name: 'Main' }).count()) > 0)
    return;
  await page.goto(server.url);
  await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(server.token)})`);
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * The server starts while the file is collected (top-level await): the console is built first if
 * `web/dist` is missing, since the server decides at start-up whether it has a console to serve. No feature
 * probes: every endpoint the console uses must be there, and a missing one fails the test that needs it.
 */
async function startServer(): Promise<void> {
  await ensureConsoleBuilt();
  server = await startTestServer();
}

if (executable) await startServer();

beforeAll(async () => {
  if (!executable) return;
  browser = await launchChromium(executable);
  const origin = new URL(server.url).origin;
  browser.context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) foreignRequests.push(url);
  });
  page = await browser.newPage();
}, 120_000);

// A failed test leaves a picture of the page behind.
afterEach(async (context) => {
  if (executable && context.task.result?.state === 'fail') {
    const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await screenshot(page, `failed-${name}`).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function newConversation(agentName = 'Assistant'): Promise<string> {
  await page.getByRole('link', { name: 'Chat' }).click();
  const picker = page.getByLabel('Agent', { exact: true });
  const option = picker.locator('option', { hasText: agentName });
  await picker.selectOption((await option.getAttribute('value')) ?? '');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.waitForURL(/\/chat\/cnv_/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
}

async function send(text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The text of the live (streamed) assistant turn, or '' before it exists. */
function liveText(): Promise<string> {
  return page
    .locator('li.turn[data-live="true"]')
    .last()
    .innerText()
    .catch(() => '');
}

/**
 * Runs written straight into storage, with their events appended and published as the worker would: a
 * parent run that stays `running` (owned by a fake worker with a far lease, so neither the executor nor the
 * reconciler touches it) and two children. This drives the status panel today, whatever issue 3's demo
 * scenario ends up doing.
 */
async function syntheticFanOut(conversationId: string) {
  const { storage, bus } = server.troupe;
  const conversation = (await storage.conversations.get(conversationId)) as Conversation;
  const researcher = await storage.agents.getBySlug('researcher');
  const analyst = await storage.agents.getBySlug('analyst');
  if (!researcher || !analyst) throw new Error('demo agents missing');
  const lease = { worker_id: 'wrk_fake_console_test', lease_expires_at: '2999-01-01T00:00:00.000Z' };
  const base = (id: string, overrides: Partial<NewRun>): NewRun => ({
    id,
    thread_id: conversation.thread_id,
    conversation_id: conversation.id,
    agent_id: conversation.agent_id,
    user_id: conversation.user_id,
    run_type: 'chat',
    source: 'console-e2e',
    channel: 'internal',
    request_id: `req:${id}`,
    created_by_run_id: null,
    root_run_id: id,
    depth: 0,
    subagent_thread_relation_id: null,
    runtime_scope_id: conversation.thread_id,
    tool_approval_mode: 'default',
    model_spec: 'scripted:demo',
    input: { message: 'team: look into the notes' },
    ...overrides,
  });
  const parentId = newRunId();
  const parent = await storage.runs.insert(base(parentId, {}));
  await storage.messages.append(conversation.thread_id, parentId, 0, [
    { role: 'user', content: 'team: look into the notes' },
  ]);
  await walkRunTo(storage, parent.id, 'running', { started_at: new Date().toISOString(), ...lease });

  const child = async (
    agentId: string,
    slug: string,
    kind: 'subagent' | 'delegation',
    task: string,
    toolCallId: string,
  ) => {
    const thread = newId('thr');
    const childConversation = await storage.conversations.create({
      user_id: conversation.user_id,
      agent_id: agentId,
      thread_id: thread,
      project_id: conversation.project_id,
      status: kind,
      title: `SubAgent: ${slug}`,
      metadata: { parent_conversation_id: conversation.id },
    });
    const id = newRunId();
    const run = await storage.runs.insert(
      base(id, {
        thread_id: thread,
        conversation_id: childConversation.id,
        agent_id: agentId,
        run_type: kind,
        created_by_run_id: parent.id,
        root_run_id: parent.id,
        depth: 1,
        model_spec: `scripted:${slug}`,
        input: { message: task, parent_tool_call_id: toolCallId },
      }),
    );
    await storage.messages.append(thread, id, 0, [{ role: 'user', content: task }]);
    return { run, thread, conversation: childConversation, slug, kind, task, toolCallId };
  };
  const research = await child(
    researcher.id,
    'researcher',
    'subagent',
    'List the notes in the project',
    'call_research',
  );
  const analysis = await child(
    analyst.id,
    'analyst',
    'delegation',
    'Recommend what to do with the notes',
    'call_analyst',
  );
  const names: Record<string, string> = { researcher: 'Researcher', analyst: 'Analyst' };

  const lineage = (run: Run) => ({
    root_run_id: parent.id,
    parent_run_id: run.created_by_run_id,
    parent_tool_call_id: run.input.parent_tool_call_id ?? null,
    depth: run.depth,
  });
  const emit = (run: Run, type: RunEventType, payload: Record<string, unknown>) =>
    appendAndPublish(storage, bus, run.id, type, { ...lineage(run), ...payload });
  const update = async (
    which: typeof research,
    status: Run['status'],
    extra: Record<string, unknown> = {},
  ) => {
    const patch: Omit<RunPatch, 'status'> = {};
    if (status === 'running') Object.assign(patch, { started_at: new Date().toISOString(), ...lease });
    if (status === 'completed')
      Object.assign(patch, {
        finished_at: new Date().toISOString(),
        output: extra.output ?? null,
        usage: { input_tokens: 40, output_tokens: 12, total_tokens: 52, model_calls: 1 },
      });
    await walkRunTo(storage, which.run.id, status, patch);
    await appendAndPublish(storage, bus, parent.id, 'subagent_update', {
      root_run_id: parent.id,
      parent_run_id: null,
      depth: 0,
      run_id: which.run.id,
      kind: which.kind,
      slug: which.slug,
      name: names[which.slug],
      status,
      child_thread_id: which.thread,
      child_conversation_id: which.conversation.id,
      parent_tool_call_id: which.toolCallId,
      description: which.task,
      error: null,
      output: null,
      ...extra,
    });
  };
  return { parent, research, analysis, emit, update, storage, bus };
}

describe.skipIf(!executable)('web console in chromium', () => {
  it(
    'logs in with the token and lands on the console',
    async () => {
      await page.goto(server.url);
      await poll(() => page.getByRole('heading', { name: 'Troupe console' }).isVisible()).toBe(true);
      await screenshot(page, '01-login');

      // A wrong token is refused with its code and stays on the login page.
      await page.getByLabel('API token').fill('trp_wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await poll(() => page.getByRole('alert').innerText()).toContain('unauthorized');

      await page.getByLabel('API token').fill(server.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      expect(await page.evaluate('localStorage.getItem("troupe.token")')).toBe(server.token);
      // A reload keeps the session.
      await page.reload();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    E2E_TIMEOUT,
  );

  it(
    'lists agents grouped, and creates a subagent through the form',
    async () => {
      await ensureSignedIn();
      await page.getByRole('link', { name: 'Agents' }).click();
      const subagents = page.getByRole('list', { name: 'Subagents' });
      await subagents.getByRole('article', { name: 'Researcher' }).waitFor();
      await page.getByRole('list', { name: 'Experts' }).getByRole('article', { name: 'Analyst' }).waitFor();
      await page.getByRole('list', { name: 'Agents' }).getByRole('article', { name: 'Assistant' }).waitFor();

      // The toggle hides subagents, as the chat agent list does.
      await page.getByLabel('Include subagents').uncheck();
      await poll(() => page.getByRole('list', { name: 'Subagents' }).count()).toBe(0);
      await page.getByLabel('Include subagents').check();

      await page.getByRole('button', { name: 'New subagent' }).click();
      await page.getByRole('heading', { name: 'New subagent' }).waitFor();
      expect(await page.getByLabel('Backend').inputValue()).toBe('subagent');
      await page.getByLabel('Name').fill('Critic');
      await page.getByLabel('Slug').fill('critic');
      await page
        .getByLabel('Description', { exact: true })
        .fill('Reviews a draft and lists its weak points.');
      await page.getByLabel('System prompt').fill('You review the draft you are given.');
      await page.getByLabel('Model').fill('scripted:summarizer');
      await poll(() => page.getByText('This agent is scripted.').isVisible()).toBe(true);
      await page.getByLabel('Tools').fill('read_file, ls');
      await page.getByLabel('Tools').press('Enter');
      await page.getByRole('button', { name: 'Remove tool ls' }).waitFor();
      // Subagents cannot have subagents: no allow-list, no inline specs.
      expect(await page.getByLabel('Inline subagent specs (JSON)').count()).toBe(0);
      await screenshot(page, '02-new-subagent-form');
      await page.getByRole('button', { name: 'Create' }).click();

      await page.getByRole('list', { name: 'Subagents' }).getByRole('article', { name: 'Critic' }).waitFor();
      const { agent } = await json<{
        agent: { is_subagent: boolean; backend: string; config: { tools: string[] } };
      }>(await server.api('/api/agent/critic'));
      expect(agent).toMatchObject({
        is_subagent: true,
        backend: 'subagent',
        config: { tools: ['read_file', 'ls'] },
      });
      await screenshot(page, '03-agents');

      // Edit: slug and backend are fixed; the change is saved and shown.
      await page.getByRole('button', { name: 'Edit Critic' }).click();
      await page.getByRole('heading', { name: 'Edit Critic' }).waitFor();
      expect(await page.getByLabel('Slug').isDisabled()).toBe(true);
      expect(await page.getByLabel('Backend').isDisabled()).toBe(true);
      await page.getByLabel('Description', { exact: true }).fill('Lists the weak points of a draft.');
      await page.getByRole('button', { name: 'Save' }).click();
      const critic = page.getByRole('list', { name: 'Subagents' }).getByRole('article', { name: 'Critic' });
      await poll(() => critic.innerText()).toContain('Lists the weak points of a draft.');

      // The main agent's allow-list offers the visible subagents, its own selection checked.
      await page.getByRole('button', { name: 'Edit Assistant' }).click();
      const allowList = page.getByRole('group', { name: 'Subagent allow-list' });
      await poll(() => allowList.getByRole('checkbox', { name: /Researcher/ }).isChecked()).toBe(true);
      expect(await allowList.getByRole('checkbox', { name: /Critic/ }).isChecked()).toBe(false);
      await page.getByRole('button', { name: 'Cancel' }).click();

      // Delete asks first; "Keep it" keeps it.
      await page.getByRole('button', { name: 'Delete Critic' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete Critic?' });
      await dialog.getByRole('button', { name: 'Keep it' }).click();
      await poll(() => dialog.count()).toBe(0);
      await page.getByRole('button', { name: 'Delete Critic' }).click();
      await page
        .getByRole('dialog', { name: 'Delete Critic?' })
        .getByRole('button', { name: 'Delete' })
        .click();
      await poll(() => critic.count()).toBe(0);
      expect((await server.api('/api/agent/critic')).status).toBe(404);
    },
    E2E_TIMEOUT,
  );

  it(
    'shows the live build report for a bad inline spec',
    async () => {
      await ensureSignedIn();
      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Name').fill('Planner');
      await page.getByLabel('Tools').fill('read_file');
      await page.getByLabel('Tools').press('Enter');
      const specs = page.getByLabel('Inline subagent specs (JSON)');

      // Not JSON yet: flagged locally, and saving is blocked.
      await specs.fill('[{"name": ');
      await poll(() => page.getByRole('alert').filter({ hasText: 'invalid_json' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);

      await specs.fill(
        JSON.stringify(
          [
            { name: 'bad name', description: 'Has a space in its name.', system_prompt: 'x' },
            {
              name: 'helper',
              description: 'Asks for a tool the parent lacks.',
              system_prompt: 'y',
              tools: ['no_such_tool'],
            },
          ],
          null,
          2,
        ),
      );
      const report = page.getByRole('region', { name: 'Build report' });
      const warnings = report.locator('.build-warning');
      await poll(() => warnings.count(), { timeout: 10_000 }).toBeGreaterThan(0);
      const text = await report.innerText();
      expect(text).toContain('bad name');
      expect(text).toContain('no_such_tool');
      expect(text).not.toContain('Build report unavailable');
      await screenshot(page, '04-spec-build-report');
      await page.getByRole('button', { name: 'Cancel' }).click();
    },
    E2E_TIMEOUT,
  );

  it(
    'runs the demo conversation: streamed answer and tool calls, nothing doubled after a reload',
    async () => {
      await ensureSignedIn();
      const conversationId = await newConversation();
      await send('hello');
      await page.getByRole('group', { name: 'Tool call write_file' }).waitFor();
      await page.getByRole('group', { name: 'Tool call read_file' }).waitFor();
      const log = page.getByRole('log', { name: 'Messages' });
      await poll(() => log.innerText(), { timeout: 15_000 }).toContain('You said: "hello"');
      await poll(() =>
        page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'),
      ).toBe('completed');
      // Tool results are there: open the write_file card.
      await page.getByRole('group', { name: 'Tool call write_file' }).locator('summary').click();
      await poll(() => page.getByRole('group', { name: 'Tool call write_file' }).innerText()).toContain(
        'Created',
      );
      await screenshot(page, '05-chat-hello');

      await page.reload();
      await poll(() => log.innerText()).toContain('You said: "hello"');
      const text = await log.innerText();
      expect(text.split('You said: "hello"').length - 1).toBe(1);
      expect(await page.getByRole('group', { name: 'Tool call write_file' }).count()).toBe(1);
      // The conversation took its first message as its title.
      await poll(() => page.getByRole('navigation', { name: 'Conversation list' }).innerText()).toContain(
        'hello',
      );
      expect(conversationId).toMatch(/^cnv_/);
    },
    E2E_TIMEOUT,
  );

  it(
    'approves a real pending approval: the prompt closes, the run completes and the file is written',
    async () => {
      await ensureSignedIn();
      // A main agent in `default` approval mode: the demo scenario's write_file waits for a human decision.
      const created = await server.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          name: 'Careful writer',
          slug: 'careful-writer',
          config: {
            model: 'scripted:demo',
            tools: ['read_file', 'write_file'],
            tool_approval_mode: 'default',
          },
        }),
      });
      expect(created.status).toBe(201);
      await page.reload();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      const conversationId = await newConversation('Careful writer');
      await send('approved from the console');

      const prompt = page.getByRole('alertdialog', { name: 'Approve write_file?' });
      await prompt.waitFor({ timeout: 15_000 });
      const badge = page.getByLabel('Run status').locator('[data-status]');
      await poll(() => badge.getAttribute('data-status')).toBe('input_required');
      const { runs } = await json<{ runs: { id: string; status: string }[] }>(
        await server.api(`/api/conversations/${conversationId}/runs`),
      );
      const runId = runs[0]?.id ?? '';
      const conversation = await server.troupe.storage.conversations.get(conversationId);
      const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
      const note = path.join(project?.workdir ?? '', 'notes/hello.md');
      const noteText = () => (existsSync(note) ? readFileSync(note, 'utf8') : '');
      expect(noteText()).not.toContain('approved from the console');
      await screenshot(page, '11-approval-prompt');

      await prompt.getByRole('button', { name: 'Approve' }).click();
      // The server must accept the decision: the prompt closes, and never shows an error alert.
      await poll(() => prompt.count()).toBe(0);
      const { approvals } = await json<{ approvals: { status: string; tool_name: string }[] }>(
        await server.api(`/api/agent/runs/${runId}/approvals`),
      );
      expect(approvals).toMatchObject([{ tool_name: 'write_file', status: 'approved' }]);
      await poll(() => badge.getAttribute('data-status'), { timeout: 15_000 }).toBe('completed');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText(), {
        timeout: 15_000,
      }).toContain('You said: "approved from the console"');
      // The approved tool's effect: the note is on disk with the message in it.
      expect(noteText()).toBe('# Hello\n\napproved from the console\n');
      expect(
        (await json<{ run: { status: string } }>(await server.api(`/api/agent/runs/${runId}`))).run.status,
      ).toBe('completed');
    },
    E2E_TIMEOUT,
  );

  it(
    'streams a slow answer, resumes it after a reload without doubling, and Cancel ends it as cancelled',
    async () => {
      await ensureSignedIn();
      const conversationId = await newConversation();
      await send('please be slow');
      // The whole first phrase before the reload: what the restored view holds must appear once, not cut.
      await poll(liveText, { timeout: 10_000 }).toContain('You asked for something slow');
      await screenshot(page, '06-chat-slow-streaming');

      // Reload mid-stream: the page finds the active run and resumes from the seq it stored.
      const before = await liveText();
      await page.reload();
      await poll(async () => (await liveText()).length, { timeout: 10_000 }).toBeGreaterThan(before.length);
      const resumed = await liveText();
      if (resumed.split('You asked for something slow').length - 1 !== 1) {
        const turns = await page.locator('li.turn').allInnerTexts();
        console.log('RESUME-DEBUG', JSON.stringify({ before, resumed: resumed.slice(0, 300), turns }));
      }
      expect(resumed.split('You asked for something slow').length - 1).toBe(1);

      await page.getByRole('button', { name: 'Cancel run' }).click();
      const badge = page.getByLabel('Run status').locator('[data-status]');
      await poll(() => badge.getAttribute('data-status'), { timeout: 10_000 }).toBe('cancelled');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText()).toContain('Run cancelled');
      expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
      await screenshot(page, '07-chat-cancelled');

      const { runs } = await json<{ runs: { status: string }[] }>(
        await server.api(`/api/conversations/${conversationId}/runs`),
      );
      expect(runs[0]?.status).toBe('cancelled');

      // After a reload the partial answer comes from the stored thread, marked as cancelled.
      await page.reload();
      const partial = page.getByRole('log', { name: 'Messages' }).locator('.turn-text.partial');
      await poll(() => partial.innerText()).toMatch(/^You asked for[\s\S]* — cancelled$/);
      await screenshot(page, '07-chat-cancelled-reloaded');
    },
    E2E_TIMEOUT,
  );

  it(
    'shows the run tree with status, duration and token usage per node',
    async () => {
      await ensureSignedIn();
      await newConversation();
      await send('hello again');
      await poll(() => page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'), {
        timeout: 15_000,
      }).toBe('completed');
      await page.getByRole('link', { name: 'Trace', exact: true }).first().click();
      const root = page.getByRole('list', { name: 'Run tree' }).getByRole('article').first();
      await root.waitFor();
      const text = await root.innerText();
      expect(text).toContain('Completed');
      expect(text).toMatch(/\d+ tokens/);
      expect(text).toMatch(/[\d.]+ (ms|s) ·/);
      await screenshot(page, '08-run-tree');
    },
    E2E_TIMEOUT,
  );

  it(
    'manages API tokens and shows the delegation policy',
    async () => {
      await ensureSignedIn();
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Token name').fill('ci-token');
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = page.getByRole('status', { name: 'New token' });
      await poll(() => secret.innerText()).toMatch(/trp_/);
      await page.getByRole('button', { name: 'Revoke ci-token' }).click();
      await page
        .getByRole('dialog', { name: 'Revoke ci-token?' })
        .getByRole('button', { name: 'Revoke' })
        .click();
      await poll(() => page.getByRole('button', { name: 'Revoke ci-token' }).count()).toBe(0);
      await page.getByRole('heading', { name: 'Delegation policy' }).waitFor();
      // The demo user is seeded with policy `all`: the section shows the stored policy, not a fallback.
      await poll(() => page.getByRole('radio', { name: 'All experts I can use' }).isChecked()).toBe(true);
      expect(await page.getByText('Delegation policy is not available on this server').count()).toBe(0);
      await screenshot(page, '09-settings');
    },
    E2E_TIMEOUT,
  );

  it(
    'sends the user back to the login page on a 401 (revoked token) and on Log out',
    async () => {
      await ensureSignedIn();
      const created = await json<{ token: string; record: { id: string } }>(
        await server.api('/api/me/tokens', { method: 'POST', body: JSON.stringify({ name: 'short-lived' }) }),
      );
      await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(created.token)})`);
      await page.reload();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      // Let the page's own requests finish first, so the 401 comes from the click below.
      await page.waitForLoadState('networkidle');
      expect((await server.api(`/api/me/tokens/${created.record.id}`, { method: 'DELETE' })).status).toBe(
        204,
      );

      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      expect(await page.getByRole('status').innerText()).toContain('401');
      expect(await page.evaluate('localStorage.getItem("troupe.token")')).toBeNull();
      await screenshot(page, '10-login-after-401');

      await page.getByLabel('API token').fill(server.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'Troupe console' }).waitFor();
      expect(await page.getByRole('status').innerText()).toContain('Signed out');
      expect(await page.evaluate('localStorage.getItem("troupe.token")')).toBeNull();
    },
    E2E_TIMEOUT,
  );

  it(
    'status panel: cards move live from subagent_update events, show child progress, cancel a child (synthetic runs)',
    async () => {
      await ensureSignedIn();
      const { conversation } = await json<{ conversation: { id: string } }>(
        await server.api('/api/conversations', {
          method: 'POST',
          body: JSON.stringify({ agent_id: 'assistant', title: 'fan-out' }),
        }),
      );
      const fan = await syntheticFanOut(conversation.id);
      await fan.emit(fan.parent, 'metadata', { model: 'scripted:demo (scripted — not an LLM)' });
      await fan.emit(fan.parent, 'message_delta', { text: 'Handing this to the team.' });
      await fan.emit(fan.parent, 'tool_call', {
        tool_call_id: 'call_research',
        name: 'subagent_start',
        args: { subagent: 'researcher', description: fan.research.task },
      });

      await page.goto(`${server.url}/chat/${conversation.id}`);
      await poll(liveText).toContain('Handing this to the team.');
      const cards = page.getByRole('list', { name: 'Subagent runs' }).locator('article.subagent-card');
      const researchCard = page.locator(`article.subagent-card[data-run-id="${fan.research.run.id}"]`);
      const analysisCard = page.locator(`article.subagent-card[data-run-id="${fan.analysis.run.id}"]`);

      await fan.update(fan.research, 'pending');
      await poll(() => researchCard.getAttribute('data-status')).toBe('pending');
      await fan.update(fan.research, 'running');
      await fan.update(fan.analysis, 'running');
      await poll(() => cards.count()).toBe(2);
      await poll(() => researchCard.getAttribute('data-status')).toBe('running');
      expect(await researchCard.innerText()).toContain(fan.research.task);
      expect(await researchCard.innerText()).toContain(fan.research.thread);
      expect(await analysisCard.innerText()).toContain('delegation');

      // The child's own stream drives the progress line.
      await fan.emit(fan.research.run, 'metadata', { model: 'scripted:researcher' });
      await fan.emit(fan.research.run, 'tool_call', {
        tool_call_id: 'c_ls',
        name: 'ls',
        args: { path: 'notes' },
      });
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe('ls({"path":"notes"})');
      await fan.emit(fan.research.run, 'message_delta', { text: 'Found two notes: hello.md and plan.md' });
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe(
        'Found two notes: hello.md and plan.md',
      );

      // A reload rebuilds the panel (from the saved stream view, and from the panel endpoint when the server
      // has it) and resumes the parent's stream where it was: the streamed text is there once.
      await page.reload();
      await poll(() => cards.count()).toBe(2);
      await poll(() => researchCard.getAttribute('data-status')).toBe('running');
      await poll(() => researchCard.getByLabel('Latest progress').innerText()).toBe(
        'Found two notes: hello.md and plan.md',
      );
      expect((await liveText()).split('Handing this to the team.').length - 1).toBe(1);

      await fan.update(fan.analysis, 'completed', { output: 'Archive the old notes.' });
      await poll(() => analysisCard.getAttribute('data-status')).toBe('completed');
      await poll(() => analysisCard.innerText()).toContain('Archive the old notes.');

      // Waiting for an approval: its own status, then cancelled from the card.
      await walkRunTo(fan.storage, fan.research.run.id, 'input_required');
      await fan.update(fan.research, 'input_required');
      await poll(() => researchCard.getAttribute('data-status')).toBe('input_required');
      expect(await researchCard.innerText()).toContain('Input required');
      await screenshot(page, '12-status-panel-live');
      await researchCard.getByRole('button', { name: 'Cancel Researcher' }).click();
      await poll(() => researchCard.getAttribute('data-status')).toBe('cancelled');
      expect(await researchCard.innerText()).toContain('Cancelled');
      expect(await researchCard.innerText()).not.toContain('Completed');
      expect((await fan.storage.runs.get(fan.research.run.id))?.status).toBe('cancelled');

      // A card opens the child thread, read-only.
      await researchCard.getByRole('button', { name: 'Open Researcher thread' }).click();
      const thread = page.getByRole('log', { name: 'Researcher messages' });
      await poll(() => thread.innerText()).toContain(fan.research.task);
      await screenshot(page, '13-child-thread');
      await page.getByRole('button', { name: '← Back' }).click();

      // The parent ends; the panel keeps the final statuses.
      await walkRunTo(fan.storage, fan.parent.id, 'completed', {
        finished_at: new Date().toISOString(),
        output: 'Done.',
        usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, model_calls: 2 },
      });
      await fan.emit(fan.parent, 'end', { status: 'completed', output: 'Done.', error: null });
      await poll(() =>
        page.getByLabel('Run status').locator('[data-status]').getAttribute('data-status'),
      ).toBe('completed');
      expect(await analysisCard.getAttribute('data-status')).toBe('completed');
      expect(await researchCard.getAttribute('data-status')).toBe('cancelled');

      // The run tree nests both children under the parent.
      await page.goto(`${server.url}/runs/${fan.research.run.id}`);
      const tree = page.getByRole('list', { name: 'Run tree' });
      await tree.getByRole('article', { name: 'chat run of Assistant' }).waitFor();
      await tree.getByRole('article', { name: 'subagent run of Researcher' }).waitFor();
      await tree.getByRole('article', { name: 'delegation run of Analyst' }).waitFor();
      expect(await tree.getByRole('article', { name: 'delegation run of Analyst' }).innerText()).toContain(
        '52 tokens',
      );
      expect(await tree.locator('.run-children article').count()).toBe(2);
      await screenshot(page, '14-run-tree-nested');
    },
    E2E_TIMEOUT,
  );

  it('shows subagent runs in the status panel live and cancels a child', async () => {
    await ensureSignedIn();
    await newConversation();
    await send('team: research the notes and summarise them');
    const cards = page.getByRole('list', { name: 'Subagent runs' }).locator('article.subagent-card');
    await poll(() => cards.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    // Statuses move without a reload: record every status each card shows.
    const seen = new Set<string>();
    const active = ['pending', 'running', 'input_required'];
    let cancelled: string | null = null;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      for (const card of await cards.all()) {
        const status = (await card.getAttribute('data-status')) ?? '';
        seen.add(status);
        if (cancelled === null && active.includes(status)) {
          // By run id, not position: cards move as others appear and finish.
          const runId = await card.getAttribute('data-run-id');
          const cancel = page
            .locator(`article.subagent-card[data-run-id="${runId}"]`)
            .getByRole('button', { name: /^Cancel / });
          if ((await cancel.count()) > 0) {
            await screenshot(page, '15-status-panel-real');
            try {
              await cancel.click({ timeout: 5_000 });
              cancelled = runId;
            } catch {
              // It finished before the click landed: try another active child.
            }
          }
        }
      }
      if (cancelled !== null) break;
      await page.waitForTimeout(100);
    }
    expect(cancelled, `no active child to cancel; statuses seen: ${[...seen].join(', ')}`).not.toBeNull();
    const card = page.locator(`article.subagent-card[data-run-id="${cancelled}"]`);
    await poll(() => card.getAttribute('data-status'), { timeout: 15_000 }).toBe('cancelled');
    expect(await card.innerText()).toContain('Cancelled');
    expect(await card.innerText()).not.toContain('Completed');
    // Opening a card shows the child's thread, read-only.
    await card.getByRole('button', { name: /^Open / }).click();
    await page.getByRole('button', { name: '← Back' }).waitFor();
    expect(await page.getByLabel('Message', { exact: true }).isVisible()).toBe(true);
    await screenshot(page, '16-status-panel-real-cancelled');
    await page.getByRole('button', { name: '← Back' }).click();
  }, 90_000);

  it(
    'shows a delegation to an expert as a delegation card that ends completed',
    async () => {
      await ensureSignedIn();
      await newConversation();
      await send('Ask the analyst whether we should archive the notes');
      const card = page
        .getByRole('list', { name: 'Subagent runs' })
        .locator('article.subagent-card')
        .filter({ hasText: 'delegation' });
      await poll(() => card.count(), { timeout: 20_000 }).toBe(1);
      await poll(() => card.getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
      expect(await card.innerText()).toContain('Analyst');
      await poll(() => page.getByRole('log', { name: 'Messages' }).innerText(), {
        timeout: 20_000,
      }).toContain('The analyst expert answered');
      await screenshot(page, '17-delegation');
    },
    E2E_TIMEOUT,
  );

  it('made no request outside the Troupe server', () => {
    expect(foreignRequests).toEqual([]);
  });
});
