import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { StartedRun } from '../runtime/runs/run-service-api.js';
import { createTestContext, type TestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

describe('a database locked by another connection', () => {
  const open: { ctx: TestContext; other: Database.Database }[] = [];
  afterEach(async () => {
    for (const { ctx, other } of open.splice(0)) {
      if (other.inTransaction) other.exec('rollback');
      other.close();
      await ctx.close();
    }
  });

  it('answers 503 storage_busy with Retry-After, keeps nothing, and the same request succeeds once free', async () => {
    const ctx = await createTestContext({ sqliteBusyTimeoutMs: 100 });
    // Another process's connection, e.g. the sqlite3 CLI in the middle of a write.
    const other = new Database(`${ctx.dir}/troupe.db`);
    open.push({ ctx, other });
    const alice = await ctx.createUser('alice');
    await ctx.agents.create(alice.user, { name: 'Main', slug: 'main', config: { model: 'scripted:main' } });
    const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
    const send = () =>
      ctx.request('POST', `/api/conversations/${conversation.id}/messages`, {
        token: alice.token,
        body: { content: 'hello', request_id: 'req-busy' },
      });

    other.exec('begin immediate');
    const before = ctx.dump();
    const refused = await send();
    expect(refused.headers.get('retry-after')).toBe('1');
    await expectError(refused, 503, 'storage_busy');
    expect(ctx.dump()).toEqual(before);

    other.exec('commit');
    const started = await json<StartedRun>(await send(), 202);
    expect(started).toMatchObject({ status: 'started', run: { conversation_id: conversation.id } });
    expect(ctx.rawRows('runs')).toHaveLength(1);
  });
});
