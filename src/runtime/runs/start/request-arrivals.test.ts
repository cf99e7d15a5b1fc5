import { describe, expect, it } from 'vitest';
import { RequestArrivals } from './request-arrivals.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the requests of an event-loop turn', () => {
  it('is a burst once a second request arrives in the same turn, and no longer after that turn', async () => {
    const requests = new RequestArrivals();
    expect(requests.inBurst).toBe(false);
    requests.arrived();
    expect(requests.inBurst).toBe(false);
    requests.arrived();
    expect(requests.inBurst).toBe(true);
    await nextTurn();
    expect(requests.inBurst).toBe(false);
    requests.arrived();
    expect(requests.inBurst).toBe(false);
  });
});
