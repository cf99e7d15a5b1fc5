import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../core/ports/storage.js';
import type { Run } from '../../core/records/run.js';
import type { User } from '../../core/records/user.js';
import { createTestStorage, type TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import type { ToolCallRequest } from '../../core/ports/agent-middleware.js';
import { composeMiddleware } from '../middleware/compose-middleware.js';
import { createSubagentToolFilterMiddleware } from '../middleware/subagent-tool-filter-middleware.js';
import { executeTool } from '../agent-loop/execute-tool.js';
import type { ToolContext } from '../../core/tools/troupe-tool.js';
import { createInstallSkillTool } from './install-skill-tool.js';
import { createSkillService } from './skill-service.js';
import { skillMd } from '../../../test/helpers/skills/skill-archives.js';

const REFUSAL =
  'tool install_skill is not available to subagents in this approval mode; hand the result back to the main agent';

let opened: TestStorage;
let storage: Storage;
let user: User;
let workdir: string;
beforeEach(async () => {
  opened = await createTestStorage();
  storage = opened.storage;
  user = await storage.users.create({ name: 'alice', role: 'member' });
  workdir = mkdtempSync(path.join(os.tmpdir(), 'troupe-install-skill-'));
  mkdirSync(path.join(workdir, 'draft'));
  writeFileSync(path.join(workdir, 'draft/SKILL.md'), skillMd('drafted'));
});
afterEach(async () => {
  await opened.close();
  rmSync(workdir, { recursive: true, force: true });
});

function request(runType: Run['run_type']): ToolCallRequest {
  const tool = createInstallSkillTool({ storage, skills: createSkillService({ storage }) });
  const run = { id: 'run-1', user_id: user.id, run_type: runType, tool_approval_mode: 'always_trust' } as Run;
  const context: ToolContext = {
    run,
    toolCallId: 'call-1',
    abortSignal: new AbortController().signal,
    emit: () => Promise.resolve(),
    workdir,
  };
  return {
    run,
    agent: {} as never,
    toolCallId: 'call-1',
    toolName: 'install_skill',
    input: { path: 'draft' },
    tool,
    context,
  };
}

describe('install_skill', () => {
  it('installs the folder for the run user from a main agent run', async () => {
    const result = await executeTool(request('chat'));
    const bytes = Buffer.byteLength(skillMd('drafted'));
    expect(result).toEqual({
      output: `Installed skill "drafted" (1 files, ${bytes} bytes, private): The drafted skill`,
      isError: false,
    });
    expect((await storage.skills.getByName('drafted'))?.owner_id).toBe(user.id);
  });

  it('is refused in a subagent by the filter (even in always_trust) and by the tool itself', async () => {
    const chain = composeMiddleware([createSubagentToolFilterMiddleware('always_trust')], {
      callModel: () => Promise.reject(new Error('unused')),
      callTool: executeTool,
    });
    const refused = {
      output: REFUSAL,
      isError: true,
      refusal: { code: 'tool_not_available', reason: REFUSAL, tool: 'install_skill' },
    };
    expect(await chain.callTool(request('subagent'))).toEqual(refused);
    // Should a subagent run reach the tool by another road, it refuses with the same text and refusal.
    expect(await executeTool(request('subagent'))).toEqual(refused);
    expect(await storage.skills.getByName('drafted')).toBeUndefined();
  });
});
