import { describe, expect, it } from 'vitest';
import { storageOutageError as unavailable } from '../../../test/helpers/runtime/storage-outage-error.js';
import { readingThrough, writingThrough, type StorageOutage } from './storage-outage.js';

/** An outage that is over at once, counting the waits. */
function instantOutage(): StorageOutage & { waits: number } {
  const outage = {
    waits: 0,
    waitOut: () => Promise.resolve(void (outage.waits += 1)),
    settle: () => Promise.resolve(undefined),
  };
  return outage;
}

/** A write that fails with `errors` in turn, then answers how many times it was sent. */
function failing(...errors: Error[]) {
  let sent = 0;
  return {
    write: () => {
      sent += 1;
      const error = errors[sent - 1];
      return error ? Promise.reject(error) : Promise.resolve(sent);
    },
    sent: () => sent,
  };
}

describe('writingThrough', () => {
  it('sends a write that surely wrote nothing again once the outage is waited out', async () => {
    const outage = instantOutage();
    const write = failing(unavailable(), unavailable());
    await expect(writingThrough(outage, write.write)).resolves.toBe(3);
    expect(outage.waits).toBe(2);
  });

  it('throws a write whose outcome is unknown unless told what to do with it', async () => {
    const lost = unavailable('unknown');
    await expect(writingThrough(instantOutage(), failing(lost).write)).rejects.toBe(lost);
    const again = failing(unavailable('unknown'));
    await expect(writingThrough(instantOutage(), again.write, 'again')).resolves.toBe(2);
    const instead = failing(unavailable('unknown'));
    const outage = instantOutage();
    await expect(writingThrough(outage, instead.write, { instead: 0 })).resolves.toBe(0);
    expect(instead.sent()).toBe(1);
    expect(outage.waits).toBe(1);
  });
});

describe('readingThrough', () => {
  it('reads again once each outage is waited out, whatever the outcome of the lost read', async () => {
    const outage = instantOutage();
    const read = failing(unavailable(), unavailable('unknown'));
    await expect(readingThrough(outage, read.write)).resolves.toBe(3);
    expect(outage.waits).toBe(2);
  });
});

describe.each([
  ['writingThrough', writingThrough],
  ['readingThrough', readingThrough],
] as const)('%s', (_name, through) => {
  it('throws anything but an outage, and everything without an outage to wait', async () => {
    const other = new Error('constraint');
    await expect(through(instantOutage(), failing(other).write)).rejects.toBe(other);
    const down = unavailable();
    await expect(through(undefined, failing(down).write)).rejects.toBe(down);
  });
});
