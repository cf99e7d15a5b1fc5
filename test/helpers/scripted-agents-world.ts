import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { AgentConfig } from '../../src/core/records/agent.js';
import type { User } from '../../src/core/records/user.js';
import { startTestServer, type TestServer } from './start-test-server.js';

/** The scenarios both OpenAI-shaped API suites play: a tool call between two texts, a stall, an approval, a question. */
export const API_SCENARIOS: Record<string, string> = {
  echo: `
rules:
  - steps:
      - text: "Let me note that."
        tool_calls:
          - name: write_file
            args: { path: "note.md", content: "{{input}}" }
      - text: "Noted: {{input}}"
`,
  slow: `
rules:
  - steps:
      - text: "Thinking"
        tool_calls:
          - name: ls
            args: {}
      - delay_ms: 600000
        text: "This never arrives"
`,
  approver: `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: "a.md", content: "x" }
      - text: "Done."
`,
};

const TRUSTED = { tools: ['write_file', 'ls'], tool_approval_mode: 'always_trust' as const };

/** Alice's agents both suites use, by slug. */
export const API_AGENTS: Record<string, AgentConfig> = {
  echo: { model: 'scripted:echo', ...TRUSTED },
  slow: { model: 'scripted:slow', ...TRUSTED },
  approver: { model: 'scripted:approver', tools: ['write_file'], tool_approval_mode: 'default' },
  asker: { model: 'scripted:asker', tools: ['ask_user_question'] },
};

export interface ScriptedAgentSpec {
  name?: string;
  backend?: 'chat' | 'subagent';
  config: AgentConfig;
}

export interface ScriptedAgentsWorld {
  server: TestServer;
  alice: { user: User; token: string };
  bob: { user: User; token: string };
  /** Agent ids by slug: alice's agents and bob's `bob-private`. */
  agentIds: Record<string, string>;
}

export interface ScriptedAgentsWorldOptions {
  /** Names the temporary folder and the tokens. */
  label: string;
  scenarios: Record<string, string>;
  /** Alice's agents by slug. */
  agents: Record<string, ScriptedAgentSpec>;
  /** Copies the repository's demo scenarios (the `assistant` and its team) in first. */
  withDemoScenarios?: boolean;
}

/**
 * A real server whose scenario folder holds `scenarios`, with alice's `agents` and bob's private agent; set up
 * before the file's tests, closed after them. `world` is filled in place so callers can extend it.
 */
export function useScriptedAgentsWorld<W extends ScriptedAgentsWorld>(
  world: W,
  options: ScriptedAgentsWorldOptions,
  ready?: () => void,
): W {
  let scenarioDir = '';
  world.agentIds = {};
  beforeAll(async () => {
    scenarioDir = mkdtempSync(path.join(os.tmpdir(), `troupe-${options.label}-scenarios-`));
    if (options.withDemoScenarios)
      cpSync(path.resolve(import.meta.dirname, '../../scenarios'), scenarioDir, { recursive: true });
    for (const [name, body] of Object.entries(options.scenarios))
      writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
    world.server = await startTestServer({ scenarioDir });
    const { auth, agents } = world.server.troupe;
    world.alice = await auth.createUserWithToken('alice', 'member', options.label);
    world.bob = await auth.createUserWithToken('bob', 'member', options.label);
    for (const [slug, spec] of Object.entries(options.agents)) {
      const agent = await agents.create(world.alice.user, {
        name: spec.name ?? slug,
        slug,
        config: spec.config,
        ...(spec.backend ? { backend: spec.backend } : {}),
      });
      world.agentIds[slug] = agent.id;
    }
    const bobs = await agents.create(world.bob.user, {
      name: 'Bob private',
      slug: 'bob-private',
      config: { model: 'scripted:echo' },
    });
    world.agentIds['bob-private'] = bobs.id;
    ready?.();
  });
  afterAll(async () => {
    await world.server?.close();
    if (scenarioDir) rmSync(scenarioDir, { recursive: true, force: true });
  });
  return world;
}
