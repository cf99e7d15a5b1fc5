/**
 * The console's Skills page and the agent editor's skill picker in a real browser (playwright-core driving
 * Debian's chromium) against the real server with the demo data. Skipped when no chromium is installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { skillMd, zipOf } from '../helpers/skills/skill-archives.js';
import { chromiumPath, ensureConsoleBuilt, launchChromium, type TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

const executable = chromiumPath();
const TIMEOUT = 60_000;

let server: TestServer;
let browser: TestBrowser;
let page: Page;

function poll<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { interval: 50, timeout: 10_000 });
}

beforeAll(async () => {
  if (!executable) return;
  await ensureConsoleBuilt();
  server = await startTestServer();
  browser = await launchChromium(executable);
  page = await browser.newPage();
  await page.goto(server.url);
  await page.evaluate(`localStorage.setItem('troupe.token', ${JSON.stringify(server.token)})`);
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!executable)('skills in the web console', () => {
  it(
    'lists the demo skill, shows its SKILL.md, uploads an archive and deletes it',
    async () => {
      await page.getByRole('link', { name: 'Skills' }).click();
      const table = page.getByRole('table', { name: 'Skills you can use' });
      await table.getByRole('row', { name: /citation-style/ }).waitFor();
      await table
        .getByRole('row', { name: /citation-style/ })
        .getByRole('button', { name: 'View' })
        .click();
      await poll(() => page.getByLabel('SKILL.md').innerText()).toContain('# Citation style');

      await page.getByLabel('Skill archive').setInputFiles({
        name: 'console-skill.zip',
        mimeType: 'application/zip',
        buffer: Buffer.from(
          zipOf([
            { path: 'console-skill/SKILL.md', content: skillMd('console-skill', 'Made in the console') },
          ]),
        ),
      });
      await page
        .getByRole('form', { name: 'Upload a skill' })
        .getByLabel('Visibility')
        .selectOption('public');
      await page.getByRole('button', { name: 'Upload skill' }).click();
      await page.waitForURL(/\/skills\/console-skill$/);
      await poll(() => page.getByLabel('SKILL.md').innerText()).toContain('name: console-skill');

      // A hostile archive is refused with its code.
      await page.getByLabel('Skill archive').setInputFiles({
        name: 'evil.zip',
        mimeType: 'application/zip',
        buffer: Buffer.from(
          zipOf([
            { path: 'SKILL.md', content: skillMd('evil') },
            { path: '../evil', content: 'x' },
          ]),
        ),
      });
      await page.getByRole('button', { name: 'Upload skill' }).click();
      await poll(() => page.getByRole('alert').innerText()).toContain('skill_invalid');

      await page.getByRole('button', { name: 'Delete console-skill' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await poll(() => table.getByRole('row', { name: /console-skill/ }).count()).toBe(0);
      expect(
        ((await (await server.api('/api/skills')).json()) as { skills: { name: string }[] }).skills.map(
          (skill) => skill.name,
        ),
      ).toEqual(['citation-style']);
    },
    TIMEOUT,
  );

  it(
    'shows the skill picker in the agent editor with live warnings for a skill nobody can see',
    async () => {
      const created = await server.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          name: 'Cited',
          slug: 'cited',
          config: { model: 'scripted:demo', skills: ['citation-style', 'ghost-skill'] },
        }),
      });
      const { warnings } = (await created.json()) as { warnings: { code: string; value: string }[] };
      expect(warnings).toContainEqual(
        expect.objectContaining({ code: 'unknown_skill', value: 'ghost-skill' }),
      );

      await page.goto(`${server.url}/agents/cited/edit`);
      const picker = page.getByRole('group', { name: 'Skills' });
      await picker.waitFor();
      expect(await picker.getByRole('checkbox', { name: 'citation-style' }).isChecked()).toBe(true);
      await poll(() => picker.innerText()).toContain('(not visible to you)');
      await poll(() => picker.getByRole('list', { name: 'Build warnings' }).innerText()).toContain(
        'unknown_skill',
      );

      // Unchecking the unknown skill removes it from the list (it is not visible, so it cannot come back).
      await picker.getByRole('checkbox', { name: /ghost-skill/ }).click();
      await poll(() => picker.innerText()).not.toContain('ghost-skill');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/agents$/);
      const agent = (await (await server.api('/api/agent/cited')).json()) as {
        agent: { config: { skills?: string[] } };
      };
      expect(agent.agent.config.skills).toEqual(['citation-style']);
    },
    TIMEOUT,
  );
});
