import { describe, it } from 'vitest';
import { expectError } from '../../test/helpers/http/expect-error.js';
import { useBadInputContext } from '../../test/helpers/http/use-bad-input-context.js';

const input = useBadInputContext();

describe('bad path and query parameters', () => {
  it('rejects invalid query values with 400 and over-long ids with 400', async () => {
    const { ctx, admin } = input();
    await expectError(
      await ctx.request('GET', '/api/agent/runs/x/await?timeout_ms=soon', { token: admin.token }),
      400,
      'validation_failed',
    );
    await expectError(
      await ctx.request('GET', '/api/agent/runs/x/events?after_seq=-1', { token: admin.token }),
      400,
      'validation_failed',
    );
    await expectError(
      await ctx.request('GET', `/api/agent/${'a'.repeat(201)}`, { token: admin.token }),
      400,
      'validation_failed',
    );
  });
});
