import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

// The message is the path to present, so each test names its own file.
const PRESENTING = `
rules:
  - when: { contains: write }
    steps:
      - tool_calls:
          - { name: write_file, args: { path: out/report.md, content: "# Report\\n" } }
      - tool_calls:
          - name: present_artifacts
            args: { artifacts: [{ path: out/report.md, title: The report }, { path: ./out/../out/report.md }] }
      - text: "{{last_tool_result}}"
  - steps:
      - tool_calls:
          - name: present_artifacts
            args: { artifacts: [{ path: notes.txt }, { path: "{{input}}" }] }
      - text: "{{last_tool_result}}"
`;

async function setup() {
  harness = await createRuntimeHarness({ scenarios: { main: PRESENTING } });
  const user = await harness.createUser('alice');
  const agent = await harness.createAgent(user, 'main', {
    model: 'scripted:main',
    tools: ['write_file', 'present_artifacts'],
    tool_approval_mode: 'always_trust',
  });
  const conversation = await harness.createConversation(user, agent);
  const project = await harness.storage.projects.get(conversation.project_id);
  const workdir = project?.workdir ?? '';
  writeFileSync(path.join(workdir, 'notes.txt'), 'some notes');
  return { h: harness, user, conversation, workdir };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function say({ h, user, conversation }: Setup, content: string) {
  const { run } = await h.runs.postMessage(user, conversation.id, { content });
  const done = await h.runs.await(user, run.id, 10_000);
  const results = toolResults(await h.storage.messages.list(conversation.thread_id), 'present_artifacts');
  return { run: done.run, result: results.at(-1), events: await h.storage.events.list(run.id, 0, 1000) };
}

describe('present_artifacts', () => {
  it('records workdir files as artifacts of the run, with one artifact event each', async () => {
    const s = await setup();
    const { h, user, conversation } = s;
    const { run, result, events } = await say(s, 'write the report');
    expect(run.status).toBe('completed');
    expect(result).toEqual({
      name: 'present_artifacts',
      text: 'Presented 1 artifact to the user: out/report.md (The report)',
      isError: false,
    });
    const artifacts = await h.storage.artifacts.listForConversation(conversation.id);
    expect(artifacts).toEqual([
      expect.objectContaining({
        run_id: run.id,
        conversation_id: conversation.id,
        user_id: user.id,
        path: 'out/report.md',
        title: 'The report',
        size: 9,
        content_type: 'text/markdown; charset=utf-8',
      }),
    ]);
    const artifactEvents = events.filter((event) => event.type === 'artifact');
    expect(artifactEvents.map((event) => event.payload.artifact)).toEqual([
      expect.objectContaining({ id: artifacts[0]?.id, path: 'out/report.md', title: 'The report', size: 9 }),
    ]);
    expect(artifactEvents[0]?.payload.tool_call_id).toBe(artifacts[0]?.tool_call_id);
  });

  it.each([
    ['a missing file', 'missing.txt', 'File not found: "missing.txt"'],
    ['a path outside the workdir', '../outside.txt', 'escapes the workdir'],
    ['a directory', 'folder', 'is a directory'],
    ['a symlink leading outside', 'sneaky.txt', 'escapes the workdir'],
  ])('refuses %s and presents nothing of that call', async (_label, requested, message) => {
    const s = await setup();
    const { h, conversation, workdir } = s;
    writeFileSync(path.join(workdir, '..', 'outside.txt'), 'not yours');
    mkdirSync(path.join(workdir, 'folder'));
    symlinkSync(path.join(workdir, '..', 'outside.txt'), path.join(workdir, 'sneaky.txt'));
    const { run, result, events } = await say(s, requested);
    expect(run.status).toBe('completed');
    expect(result?.isError).toBe(true);
    expect(result?.text).toContain(message);
    expect(await h.storage.artifacts.listForConversation(conversation.id)).toEqual([]);
    expect(events.filter((event) => event.type === 'artifact')).toEqual([]);
  });
});
