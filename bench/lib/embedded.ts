import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type TroupeConfig } from '../../src/config.js';
import type { RunLimits } from '../../src/run-limits.js';
import { newId } from '../../src/core/ids.js';
import type { Agent, AgentConfig } from '../../src/core/records/agent.js';
import type { Conversation } from '../../src/core/records/conversation.js';
import type { Project } from '../../src/core/records/project.js';
import type { User } from '../../src/core/records/user.js';
import { createTroupe, type Troupe } from '../../src/create-troupe.js';
import type { ProcessRole } from '../../src/check-deployment.js';
import { REPO_DIR } from './root-require.js';

export interface EmbeddedOptions {
  /** Scenario files by name (`main` → `main.yaml`), written to a scenario dir of their own. */
  scenarios: Record<string, string>;
  limits?: Partial<RunLimits>;
  workerConcurrency?: number;
  role?: ProcessRole;
  config?: Partial<TroupeConfig>;
}

export interface EmbeddedTroupe {
  troupe: Troupe;
  dir: string;
  user: User;
  project: Project;
  createAgent(slug: string, config: AgentConfig, options?: { subagent?: boolean }): Promise<Agent>;
  /** Conversations of `user` with `agent` in the shared project, created straight in storage. */
  createConversations(agent: Agent, count: number): Promise<Conversation[]>;
  close(): Promise<void>;
}

/**
 * The real composition root (`createTroupe`) in embedded mode: a SQLite file in a temp dir, the in-process
 * queue and the in-memory bus, with scripted models. One member user owns everything the bench creates.
 */
export async function startEmbeddedTroupe(options: EmbeddedOptions): Promise<EmbeddedTroupe> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-'));
  const scenarioDir = path.join(dir, 'scenarios');
  mkdirSync(scenarioDir);
  for (const [name, body] of Object.entries(options.scenarios))
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  const base = loadConfig(
    {
      TROUPE_DATA_DIR: path.join(dir, 'data'),
      TROUPE_SCENARIO_DIR: scenarioDir,
      TROUPE_PORT: '0',
      TROUPE_HOST: '127.0.0.1',
    },
    REPO_DIR,
  );
  const config: TroupeConfig = {
    ...base,
    ...(options.workerConcurrency !== undefined ? { workerConcurrency: options.workerConcurrency } : {}),
    limits: { ...base.limits, ...options.limits },
    ...options.config,
  };
  const troupe = await createTroupe(config, { role: options.role ?? 'all' });
  const { storage } = troupe;
  const user = await storage.users.create({ name: 'bench', role: 'member' });
  const workdir = path.join(dir, 'workdir');
  mkdirSync(workdir);
  const project = await storage.projects.create({ user_id: user.id, name: 'Bench', workdir });

  return {
    troupe,
    dir,
    user,
    project,
    async createAgent(slug, agentConfig, { subagent = false } = {}) {
      const agent = await storage.agents.create({
        slug,
        name: slug,
        description: `${slug} agent`,
        backend: subagent ? 'subagent' : 'chat',
        is_subagent: subagent,
        owner_id: user.id,
        visibility: 'private',
        config: agentConfig,
        status: 'draft',
        delegatable: true,
        delegation_brief: null,
        is_default: false,
      });
      await storage.access.grant(user.id, agent.id, 'created');
      return agent;
    },
    async createConversations(agent, count) {
      return storage.transaction(async (tx) => {
        const created: Conversation[] = [];
        for (let index = 0; index < count; index++) {
          created.push(
            await tx.conversations.create({
              user_id: user.id,
              agent_id: agent.id,
              thread_id: newId('thr'),
              project_id: project.id,
              status: 'active',
              title: `bench ${index}`,
              metadata: {},
            }),
          );
        }
        return created;
      });
    },
    async close() {
      await troupe.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
