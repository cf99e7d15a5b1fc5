import { afterAll, beforeAll } from 'vitest';
import { createTestContext, type TestContext, type TestUser } from './create-test-context.js';

/** The body limit of the bad-input server: small, so oversize bodies stay cheap. */
export const MAX_BODY_BYTES = 4096;

/** Ids of the admin's records, for routes whose path needs one. */
export interface BadInputIds {
  agent: string;
  conversation: string;
  source: string;
}

export interface BadInputContext {
  ctx: TestContext;
  admin: TestUser;
  ids: BadInputIds;
}

/**
 * One server for the file, with an admin owning an agent, a conversation and a knowledge source, so
 * that only the input can be at fault; the getter is valid inside tests.
 */
export function useBadInputContext(): () => BadInputContext {
  let current: BadInputContext | undefined;
  beforeAll(async () => {
    const ctx = await createTestContext({ config: { maxBodyBytes: MAX_BODY_BYTES } });
    const admin = await ctx.createUser('root', 'admin');
    const agent = await ctx.agents.create(admin.user, { name: 'Main', slug: 'main' });
    const conversation = await ctx.conversations.create(admin.user, { agent_id: agent.id });
    const source = await ctx.storage.knowledgeSources.create({
      name: 'kb',
      description: '',
      owner_id: admin.user.id,
      visibility: 'private',
    });
    current = { ctx, admin, ids: { agent: agent.id, conversation: conversation.id, source: source.id } };
  });
  afterAll(async () => current?.ctx.close());
  return () => {
    if (!current) throw new Error('The bad-input context is built in beforeAll');
    return current;
  };
}
