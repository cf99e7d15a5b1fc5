import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import { startRaceWinner } from './start-race-winner.js';

const winner = { id: 'run-winner', user_id: 'usr_a', request_id: 'req:1' } as Run;

/** Only the request-id look-up is used: it records what it was asked. */
function storageWith(run: Run | undefined) {
  const asked: [string, string][] = [];
  const storage = {
    runs: {
      getByRequestId: (userId: string, requestId: string) => {
        asked.push([userId, requestId]);
        return Promise.resolve(run);
      },
    },
  } as unknown as Storage;
  return { storage, asked };
}

describe('startRaceWinner', () => {
  it('looks the winner up by request id after a request-id conflict or another unique key', async () => {
    for (const error of [
      new TroupeError('request_id_conflict', 'taken'),
      new TroupeError('internal', 'Unique key conversations_thread_uq violated', {
        details: { constraint: 'conversations_thread_uq' },
      }),
    ]) {
      const { storage, asked } = storageWith(winner);
      expect(await startRaceWinner(storage, error, 'usr_a', 'req:1')).toBe(winner);
      expect(asked).toEqual([['usr_a', 'req:1']]);
    }
  });

  it('answers nothing, without a look-up, for any other error or a start without a request id', async () => {
    for (const [error, requestId] of [
      [new TroupeError('internal', 'disk full'), 'req:1'],
      [new Error('boom'), 'req:1'],
      [new TroupeError('run_busy', 'busy'), 'req:1'],
      [new TroupeError('request_id_conflict', 'taken'), undefined],
    ] as const) {
      const { storage, asked } = storageWith(winner);
      expect(await startRaceWinner(storage, error, 'usr_a', requestId)).toBeUndefined();
      expect(asked).toEqual([]);
    }
  });

  it('answers nothing when the winner rolled back after all', async () => {
    const { storage } = storageWith(undefined);
    expect(
      await startRaceWinner(storage, new TroupeError('request_id_conflict', 'taken'), 'usr_a', 'req:1'),
    ).toBeUndefined();
  });
});
