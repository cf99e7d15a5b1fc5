import type { TroupeConfig } from '../../../src/config.js';
import { DEFAULT_FILE_LIMITS } from '../../../src/file-limits.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run } from '../../../src/core/records/run.js';
import type { AwaitedRun, StartedRun } from '../../../src/runtime/runs/run-service-api.js';
import { closeAfterEach } from '../close-after-each.js';
import { createRuntimeHarness } from '../create-runtime-harness.js';
import { createTestContext, type TestContext, type TestUser } from './create-test-context.js';
import { json } from './expect-error.js';

const MAIN = `
rules:
  - when: { contains: report }
    steps:
      - tool_calls:
          - { name: write_file, args: { path: out/report.md, content: "# Quarterly report\\n" } }
      - tool_calls:
          - name: present_artifacts
            args: { artifacts: [{ path: out/report.md, title: Quarterly report }] }
      - text: Here is your report.
  - when: { contains: research }
    steps:
      - tool_calls: [{ name: task, args: { subagent_slug: reader, description: "{{input}}" } }]
      - text: "{{last_tool_result}}"
  - steps:
      - text: "Got: {{input}}"
`;

const READER = `
rules:
  - steps:
      - tool_calls: [{ name: read_file, args: { path: uploads/notes.txt } }]
      - text: "The upload says: {{last_tool_result}}"
`;

export interface ConversationFileSetup {
  ctx: TestContext;
  alice: TestUser;
  bob: TestUser;
  admin: TestUser;
  conversation: Conversation;
  workdir: string;
}

/**
 * Registers the cleanup and returns `setup`: Alice's conversation with a main agent that writes and
 * presents a report and a reader subagent that reads an upload, under the given file limits.
 */
export function useConversationFileSetup(): (
  files?: Partial<TroupeConfig['files']>,
) => Promise<ConversationFileSetup> {
  const closeLater = closeAfterEach();
  return async (files = {}) => {
    const harness = await createRuntimeHarness({
      scenarios: { main: MAIN, reader: READER },
      config: { files: { ...DEFAULT_FILE_LIMITS, ...files } },
    });
    closeLater(harness);
    const ctx = await createTestContext({ harness });
    closeLater(ctx);
    const alice = await ctx.createUser('alice');
    const bob = await ctx.createUser('bob');
    const admin = await ctx.createUser('root', 'admin');
    await ctx.agents.create(alice.user, {
      name: 'Reader',
      slug: 'reader',
      backend: 'subagent',
      is_subagent: true,
      config: { model: 'scripted:reader', tools: ['read_file'] },
    });
    await ctx.agents.create(alice.user, {
      name: 'Main',
      slug: 'main',
      config: {
        model: 'scripted:main',
        tools: ['write_file', 'present_artifacts'],
        subagents: ['reader'],
        tool_approval_mode: 'always_trust',
      },
    });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
    const project = await ctx.storage.projects.get(conversation.project_id);
    return { ctx, alice, bob, admin, conversation, workdir: project?.workdir ?? '' };
  };
}

/** Alice says `content` and waits for the run to end. */
export async function say(s: ConversationFileSetup, content: string, attachments?: string[]): Promise<Run> {
  const { run } = await json<StartedRun>(
    await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
      token: s.alice.token,
      body: { content, ...(attachments ? { attachments } : {}) },
    }),
    202,
  );
  const done = await json<AwaitedRun>(
    await s.ctx.request('GET', `/api/agent/runs/${run.id}/await?timeout_ms=15000`, { token: s.alice.token }),
    200,
  );
  return done.run;
}

/** Posts a multipart upload of `parts` ([field, value, file name]) as the holder of `token`. */
export function upload(
  s: ConversationFileSetup,
  token: string,
  parts: [string, Blob | string, string?][],
  conversationId = s.conversation.id,
) {
  const form = new FormData();
  for (const [field, value, name] of parts) {
    if (typeof value === 'string') form.append(field, value);
    else form.append(field, value, name);
  }
  return s.ctx.app.request(`/api/conversations/${conversationId}/attachments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
}

export const text = (content: string, type = 'text/plain') => new Blob([content], { type });
