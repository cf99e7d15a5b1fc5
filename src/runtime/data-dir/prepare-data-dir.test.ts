import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareDataDir } from './prepare-data-dir.js';

let root: string;
let dataDir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'troupe-data-dir-'));
  dataDir = path.join(root, 'data');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (target: string) => statSync(target).mode & 0o7777;
const isRoot = process.geteuid?.() === 0;
const SANDBOX = { uid: 100_000 + 4848, gid: 100_000 + 4848 };

describe('prepareDataDir', () => {
  it('creates the data dir and workdirs/ for the server alone, and reports nothing new', async () => {
    expect(await prepareDataDir(dataDir, undefined)).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'workdirs'))).toBe(0o700);
  });

  it('tightens what it finds, without following links, in one report; a second start changes nothing', async () => {
    mkdirSync(path.join(dataDir, 'workdirs/prj_a'), { recursive: true });
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'file'), 'x');
    chmodSync(outside, 0o755);
    chmodSync(path.join(outside, 'file'), 0o644);
    symlinkSync(outside, path.join(dataDir, 'workdirs/linked'));
    symlinkSync(path.join(outside, 'file'), path.join(dataDir, 'linked.db'));
    writeFileSync(path.join(dataDir, 'troupe.db'), '');
    for (const [target, mode] of [
      ['.', 0o755],
      ['workdirs', 0o755],
      ['workdirs/prj_a', 0o775],
      ['troupe.db', 0o644],
    ] as const)
      chmodSync(path.join(dataDir, target), mode);
    expect(await prepareDataDir(dataDir, undefined)).toEqual([
      'the data dir 755 -> 700',
      '1 file in it -> 0600',
      'workdirs/ 755 -> 700',
      '1 workdir -> 0700',
    ]);
    expect([modeOf(dataDir), modeOf(path.join(dataDir, 'troupe.db'))]).toEqual([0o700, 0o600]);
    expect(modeOf(path.join(dataDir, 'workdirs/prj_a'))).toBe(0o700);
    expect([modeOf(outside), modeOf(path.join(outside, 'file'))]).toEqual([0o755, 0o644]);
    expect(await prepareDataDir(dataDir, undefined)).toEqual([]);
  });

  it.runIf(isRoot)(
    'lets the sandbox uid pass through to the workdirs it owns, and nothing more',
    async () => {
      mkdirSync(path.join(dataDir, 'workdirs/prj_a'), { recursive: true });
      expect(await prepareDataDir(dataDir, SANDBOX)).toEqual([
        `the data dir 755 -> 710, group ${SANDBOX.gid}`,
        `workdirs/ 755 -> 710, group ${SANDBOX.gid}`,
        `1 workdir -> 0700, owned by uid ${SANDBOX.uid}`,
      ]);
      expect(await prepareDataDir(dataDir, SANDBOX)).toEqual([]);
      for (const directory of [dataDir, path.join(dataDir, 'workdirs')]) {
        expect(statSync(directory)).toMatchObject({ uid: 0, gid: SANDBOX.gid });
        expect(modeOf(directory)).toBe(0o710);
      }
      expect(statSync(path.join(dataDir, 'workdirs/prj_a'))).toMatchObject({
        uid: SANDBOX.uid,
        gid: SANDBOX.gid,
      });
    },
  );
});
