import { newId } from '../../../src/core/ids.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';
import { contractRunInput } from './contract-run-input.js';

/** A user, an agent, a project, a conversation and one pending root run on its thread: for adapter-specific tests. */
export async function seedOneRun(storage: Storage): Promise<Run> {
  const user = await storage.users.create({ name: 'alice', role: 'member' });
  const agent = await storage.agents.create({
    slug: 'a',
    name: 'a',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: user.id,
    visibility: 'private',
    config: {},
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
  });
  const project = await storage.projects.create({ user_id: user.id, name: 'p', workdir: '/tmp/p' });
  const conversation = await storage.conversations.create({
    user_id: user.id,
    agent_id: agent.id,
    thread_id: newId('thr'),
    project_id: project.id,
    status: 'active',
    title: 't',
    metadata: {},
  });
  return storage.runs.insert(contractRunInput(conversation));
}
