import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { useTestStorage } from '../../../../test/helpers/use-test-storage.js';

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** Another process holding the write lock for `holdMs` (a CLI command, or the WAL worker's restart). */
async function holdWriteLock(filename: string, holdMs: number): Promise<{ exited: Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require(${JSON.stringify(DRIVER)}))(${JSON.stringify(filename)});
       db.exec('begin immediate');
       console.log('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
       db.exec('commit');`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for await (const line of createInterface({ input: child.stdout })) if (line === 'locked') break;
  return { exited };
}

describe('SQLite transactions while another connection writes', () => {
  const open = useTestStorage();

  it('a transaction that reads before it writes waits for the other writer instead of failing', async () => {
    const { storage, filename } = await open();
    const other = await holdWriteLock(filename, 300);
    const created = await storage.transaction(async (tx) => {
      expect(await tx.users.getByName('ann')).toBeUndefined();
      return tx.users.create({ name: 'ann', role: 'member' });
    });
    await other.exited;
    expect((await storage.users.get(created.id))?.name).toBe('ann');
  });
});
