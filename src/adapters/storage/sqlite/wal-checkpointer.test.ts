import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startWalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];

function openWalDatabase(): { database: Database.Database; filename: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-wal-'));
  dirs.push(dir);
  const filename = path.join(dir, 'db.sqlite');
  const database = new Database(filename);
  database.pragma('journal_mode = WAL');
  database.exec('create table blobs (id integer primary key, body blob)');
  return { database, filename };
}

function autocheckpoint(database: Database.Database): number {
  return database.pragma('wal_autocheckpoint', { simple: true }) as number;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('startWalCheckpointer', () => {
  it('takes checkpoints over from the writer and copies committed pages into the database file', async () => {
    const { database, filename } = openWalDatabase();
    const checkpointer = startWalCheckpointer(database, filename, 20);
    expect(await checkpointer.ready).toBe(true);
    expect(autocheckpoint(database)).toBe(0);

    const before = statSync(filename).size;
    const insert = database.prepare('insert into blobs (body) values (?)');
    // Well past the 1,000 pages at which the writer would have checkpointed itself.
    for (let i = 0; i < 1_200; i++) insert.run(Buffer.alloc(4_096, i % 256));
    const deadline = Date.now() + 10_000;
    while (statSync(filename).size < before + 4_000_000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(statSync(filename).size).toBeGreaterThan(before + 4_000_000);

    await checkpointer.stop();
    expect(autocheckpoint(database)).toBe(1000);
    expect(database.prepare('select count(*) as n from blobs').get()).toEqual({ n: 1_200 });
    database.close();
  });

  it('keeps the WAL bounded under sustained writes, which a PASSIVE checkpoint alone never resets', async () => {
    const { database, filename } = openWalDatabase();
    database.pragma(`journal_size_limit = ${1024 * 1024}`);
    const checkpointer = startWalCheckpointer(database, filename, 10, 200);
    expect(await checkpointer.ready).toBe(true);
    const insert = database.prepare('insert into blobs (body) values (?)');
    const writeFive = database.transaction((seed: number) => {
      for (let i = 0; i < 5; i++) insert.run(Buffer.alloc(4_096, (seed + i) % 256));
    });
    // A transaction about every millisecond, as a busy server commits: a checkpoint never finds the WAL
    // without new frames, so without a restart the file ends up larger than everything written (~30 MB).
    let largestWal = 0;
    let written = 0;
    while (written < 20_000_000) {
      writeFive(written);
      written += 5 * 4_096;
      largestWal = Math.max(largestWal, statSync(`${filename}-wal`).size);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(largestWal).toBeGreaterThan(0);
    expect(largestWal).toBeLessThan(8_000_000);
    await checkpointer.stop();
    expect(database.prepare('select count(*) as n from blobs').get()).toEqual({ n: written / 4_096 });
    database.close();
  });

  it('hands checkpoints back to the writer when the worker cannot open the database', async () => {
    const { database, filename } = openWalDatabase();
    const checkpointer = startWalCheckpointer(database, `${filename}.missing`, 20);
    expect(await checkpointer.ready).toBe(false);
    expect(autocheckpoint(database)).toBe(1000);
    await checkpointer.stop();
    database.close();
  });
});
