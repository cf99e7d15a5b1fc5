import { describe, expect, it } from 'vitest';
import { createWorkerSlots } from './worker-slots.js';

describe('worker slots', () => {
  it('admits at most `capacity` holders and hands slots over in FIFO order', async () => {
    const slots = createWorkerSlots(1);
    const order: string[] = [];
    await slots.acquire();
    const second = slots.acquire().then(() => order.push('second'));
    const third = slots.acquire().then(() => order.push('third'));
    expect(slots.inUse).toBe(1);
    slots.release();
    await second;
    slots.release();
    await third;
    expect(order).toEqual(['second', 'third']);
    slots.release();
    expect(slots.inUse).toBe(0);
  });

  it('lets a waiting holder give its slot to others and take one back afterwards', async () => {
    const slots = createWorkerSlots(1);
    await slots.acquire();
    let childRan = false;
    let finishChild: () => void = () => undefined;
    const childDone = new Promise<void>((resolve) => (finishChild = resolve));
    // The parent waits for a child that needs the only slot: without `outside` this would deadlock.
    const parent = slots.outside(async () => {
      await childDone;
      return 'parent resumed';
    });
    await slots.acquire();
    childRan = true;
    slots.release();
    finishChild();
    expect(await parent).toBe('parent resumed');
    expect(childRan).toBe(true);
    expect(slots.inUse).toBe(1);
  });

  it('takes a free slot at once, and none while full or while others wait for one', async () => {
    const slots = createWorkerSlots(2);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(false);
    expect(slots.inUse).toBe(2);
    const waiter = slots.acquire();
    slots.release();
    await waiter;
    // The freed slot went to the waiter, not to a later tryAcquire.
    expect(slots.tryAcquire()).toBe(false);
    slots.release();
    expect(slots.inUse).toBe(1);
    expect(slots.tryAcquire()).toBe(true);
  });

  it('hands a freed slot to a run coming back from a wait before runs waiting to start', async () => {
    const slots = createWorkerSlots(1);
    await slots.acquire();
    const order: string[] = [];
    let endWait: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => (endWait = resolve));
    const inFlight = slots.outside(() => waited).then(() => order.push('returning'));
    // The slot the wait gave up goes to a starting run; another starting run queues behind it.
    await slots.acquire();
    const starting = slots.acquire().then(() => order.push('starting'));
    endWait();
    // The returning run queues for a slot once its wait settled.
    await new Promise((resolve) => setImmediate(resolve));
    slots.release();
    await inFlight;
    slots.release();
    await starting;
    expect(order).toEqual(['returning', 'starting']);
  });

  it('keeps the slot for work that settles within the grace, and gives it up for work that waits', async () => {
    const slots = createWorkerSlots(1);
    await slots.acquire();
    expect(await slots.outsideOnceWaiting(() => Promise.resolve('at once'), 50)).toBe('at once');
    expect(slots.tryAcquire()).toBe(false);
    let endWait: () => void = () => undefined;
    const waited = slots.outsideOnceWaiting(
      () => new Promise<string>((resolve) => (endWait = () => resolve('after a wait'))),
      5,
    );
    // Past the grace the slot is free for another run, which must give it back before the waiter returns.
    await slots.acquire();
    endWait();
    slots.release();
    expect(await waited).toBe('after a wait');
    expect(slots.inUse).toBe(1);
    await expect(slots.outsideOnceWaiting(() => Promise.reject(new Error('failed')), 5)).rejects.toThrow(
      'failed',
    );
  });
});
