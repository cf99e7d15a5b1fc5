/**
 * The web console in a real browser (playwright-core driving Debian's chromium) against the real server
 * composition with the demo data: signing in and out, the agents page and the settings. Skipped, with a
 * message, when no chromium binary is installed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { consoleSession } from '../helpers/console-session.js';
import { ensureSignedIn, json, poll } from '../helpers/console-page.js';
import type { TestServer } from '../helpers/start-test-server.js';

const E2E_TIMEOUT = 60_000;

const session = await consoleSession({
  name: 'console e2e',
  failedPrefix: 'failed-',
});
let page: Page;
let server: TestServer;
beforeAll(() => {
  ({ page, server } = session);
});

describe.skipIf(!session.executable)('web console in chromium', () => {
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
      await ensureSignedIn(page, server);
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
      await ensureSignedIn(page, server);
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

      // Unsaved changes: leaving asks first (Cancel, a link, back), and a reload or a closed tab too.
      expect(
        await page.evaluate(
          `(() => { const event = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(event); return event.defaultPrevented; })()`,
        ),
      ).toBe(true);
      const asked: string[] = [];
      page.once('dialog', (dialog) => {
        asked.push(dialog.message());
        void dialog.dismiss();
      });
      await page.getByRole('link', { name: 'Settings' }).click();
      await poll(() => asked.length).toBe(1);
      expect(asked[0]).toBe('This agent has unsaved changes. Leave without saving them?');
      expect(new URL(page.url()).pathname).toBe('/agents/new');
      expect(await specs.inputValue()).toContain('bad name');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(/\/agents$/);
    },
    E2E_TIMEOUT,
  );

  it(
    'manages API tokens and shows the delegation policy',
    async () => {
      await ensureSignedIn(page, server);
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
      // A revoked secret is not offered for copying any more.
      await poll(() => secret.count()).toBe(0);
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
      await ensureSignedIn(page, server);
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

  it('made no request outside the Troupe server', () => {
    expect(session.foreignRequests).toEqual([]);
  });
});
