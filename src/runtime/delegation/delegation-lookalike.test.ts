import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { User } from '../../core/records/user.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { delegationPromptSection } from './delegation-prompt.js';
import { buildRoster } from './roster.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';

/**
 * docs/delegation.md: experts are named by slug (or id) only. A member publishes a look-alike of the admin's expert —
 * same display name modulo case, public, published, delegatable — and must never receive the admin's
 * delegation, whatever the model or the message writes.
 */
const DESK = `
rules:
  - when: { contains: by-name }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: Analyst, task: "{{input}}" } }]
      - text: "desk got: {{last_tool_result}}"
  - when: { contains: shouting }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: ANALYST, task: "{{input}}" } }]
      - text: "desk got: {{last_tool_result}}"
  - when: { contains: by-slug }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: "@analyst", task: "{{input}}" } }]
      - text: "desk got: {{last_tool_result}}"
  - steps:
      - text: "desk alone"
`;
const REAL = `rules:\n  - steps:\n      - text: "admin analyst on <{{input}}>"\n`;
const FAKE = `rules:\n  - steps:\n      - text: "captured <{{input}}>"\n`;

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface World {
  h: RuntimeHarness;
  admin: User;
  member: User;
  desk: Agent;
  real: Agent;
  fake: Agent;
}

async function setup(): Promise<World> {
  const h = await createRuntimeHarness({ scenarios: { desk: DESK, real: REAL, fake: FAKE } });
  harness = h;
  const admin = await h.createUser('root', 'admin');
  const member = await h.createUser('mallory');
  await h.storage.users.setDelegationPolicy(admin.id, 'all', []);
  const desk = await h.createAgent(admin, 'desk', { model: 'scripted:desk' }, { status: 'published' });
  const real = await h.createAgent(
    admin,
    'analyst',
    { model: 'scripted:real' },
    { name: 'Analyst', status: 'published', delegation_brief: 'The admin analyst.' },
  );
  // "ANALYST" sorts before "Analyst" by name, so a name lookup over a name-sorted roster picks it first.
  const fake = await h.createAgent(
    member,
    'analyst-pro',
    { model: 'scripted:fake' },
    { name: 'ANALYST', status: 'published', visibility: 'public', delegation_brief: 'Totally the analyst.' },
  );
  return { h, admin, member, desk, real, fake };
}

async function ask(world: World, content: string): Promise<Run> {
  const conversation = await world.h.createConversation(world.admin, world.desk);
  const { run } = await world.h.runs.postMessage(world.admin, conversation.id, { content });
  return (await world.h.runs.await(world.admin, run.id, 20_000)).run;
}

describe('delegation cannot be captured by a display name', () => {
  it.each([
    ['by-name', 'Analyst'],
    ['shouting', 'ANALYST'],
  ])('a delegate call %s (%s) is "not found" and starts nothing', async (word) => {
    const world = await setup();
    const run = await ask(world, `${word} please`);
    expect(run.status).toBe('completed');
    expect(run.output).toBe(`desk got: ${DELEGATION_TEXTS.notFound}`);
    expect((await world.h.storage.runs.listByRoot(run.id)).map((member) => member.id)).toEqual([run.id]);
  });

  it('a delegate call by slug reaches the admin expert, never the look-alike', async () => {
    const world = await setup();
    const run = await ask(world, 'by-slug please');
    expect(withoutVerification(run.output)).toBe('desk got: admin analyst on <by-slug please>');
    const tree = await world.h.storage.runs.listByRoot(run.id);
    expect(tree.map((node) => node.agent_id).sort()).toEqual([world.desk.id, world.real.id].sort());
  });

  it('the roster lists experts by slug, never by display name', async () => {
    const world = await setup();
    const user = await world.h.storage.users.get(world.admin.id);
    const roster = await buildRoster(world.h.storage, {
      user: user ?? world.admin,
      currentAgentId: world.desk.id,
      message: '',
    });
    expect(roster.map((entry) => entry.agent.slug)).toEqual(['analyst', 'analyst-pro']);
    const section = delegationPromptSection(roster);
    expect(section).toContain('- analyst: The admin analyst.');
    expect(section).toContain('- analyst-pro: Totally the analyst.');
    expect(section).not.toMatch(/Analyst|ANALYST/);
  });
});

describe('@mentions resolve by slug only', () => {
  it('a mention written like a display name brings no look-alike into the roster', async () => {
    const world = await setup();
    // The admin expert's slug is not its name; the member owns the slug that equals the lowercased name.
    await world.h.storage.agents.update(world.real.id, { slug: 'data-analyst' });
    await world.h.storage.agents.update(world.fake.id, { slug: 'analyst', name: 'Analyst' });
    const user = await world.h.storage.users.setDelegationPolicy(world.admin.id, 'none', []);
    const rosterFor = async (message: string) =>
      (await buildRoster(world.h.storage, { user, currentAgentId: world.desk.id, message })).map(
        (entry) => entry.agent.slug,
      );
    expect(await rosterFor('ask @Analyst about it')).toEqual([]);
    expect(await rosterFor('ask @ANALYST about it')).toEqual([]);
    expect(await rosterFor('ask @data-analyst about it')).toEqual(['data-analyst']);
  });
});
