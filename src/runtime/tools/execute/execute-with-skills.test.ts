import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXECUTE_SETTINGS } from '../../../execute-settings.js';
import type { Storage } from '../../../core/ports/storage.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';
import { skillMd, zipOf } from '../../../../test/helpers/skills/skill-archives.js';
import { createBwrapSandbox } from './bwrap-sandbox.js';
import { createExecutePolicyResolver } from './execute-policy.js';
import { createExecuteTool } from './execute-tool.js';
import { SANDBOX_SKIP_REASON, SANDBOX_TOOLS } from '../../../../test/helpers/execute/sandbox-fixture.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SETTINGS = { ...DEFAULT_EXECUTE_SETTINGS, sandboxUid: 100_000 + 4646 };

const MAIN = `
rules:
  - steps:
      - tool_calls:
          - name: execute
            args:
              command: "cat .skills/deploy/SKILL.md; echo pwned > .skills/deploy/SKILL.md || echo read-only; echo note > notes.txt"
      - text: "{{last_tool_result}}"
`;

describe.skipIf(!SANDBOX_TOOLS)(`execute and projected skills${SANDBOX_SKIP_REASON}`, () => {
  it('reads a projected skill through execute but cannot rewrite it', async () => {
    // The policy needs the harness's storage, which exists only once the harness does.
    const late: { storage?: Storage } = {};
    const storage = (): Storage => {
      if (!late.storage) throw new Error('harness not ready');
      return late.storage;
    };
    const sandbox = createBwrapSandbox({
      tools: SANDBOX_TOOLS as NonNullable<typeof SANDBOX_TOOLS>,
      sandboxUid: SETTINGS.sandboxUid,
    });
    const execute = createExecuteTool({
      sandbox,
      policyFor: (run) => createExecutePolicyResolver({ storage: storage(), settings: SETTINGS })(run),
    });
    harness = await createRuntimeHarness({
      scenarios: { main: MAIN },
      extraTools: [execute],
      // The harness's workdirs belong to the uid this sandbox runs as, as a root server sets them up.
      config: { execute: SETTINGS },
    });
    const h = harness;
    late.storage = h.storage;
    const user = await h.createUser('alice');
    const body = '# deploy\n\nShip it carefully.\n';
    await h.runtime.skills.createFromArchive(
      user,
      zipOf([{ path: 'deploy/SKILL.md', content: skillMd('deploy', 'Deploys things', body) }]),
    );
    const agent = await h.createAgent(user, 'main', {
      model: 'scripted:main',
      tools: ['execute'],
      skills: ['deploy'],
      tool_approval_mode: 'always_trust',
    });
    const conversation = await h.createConversation(user, agent);
    const workdir = (await h.storage.projects.get(conversation.project_id))?.workdir ?? '';

    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'deploy' });
    expect((await h.runs.await(user, run.id, 30_000)).run.status).toBe('completed');
    const [result] = toolResults(await h.storage.messages.list(conversation.thread_id), 'execute');
    const projected = skillMd('deploy', 'Deploys things', body);
    expect(result?.isError).toBe(false);
    expect(result?.text).toContain(`stdout:\n${projected}read-only\n`);
    expect(result?.text).toContain('Read-only file system');
    expect(readFileSync(path.join(workdir, '.skills/deploy/SKILL.md'), 'utf8')).toBe(projected);
    expect(readFileSync(path.join(workdir, 'notes.txt'), 'utf8')).toBe('note\n');
  });
});
