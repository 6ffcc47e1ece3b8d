import { type Settled, VirtualClock } from '@backoff/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { DRIVERS, type FaultClient, FaultServer } from '../src/index.ts';
import { AuditedBudget } from './support/audited-budget.ts';

/**
 * 10,000 calls through backoff-core's own fetch wrapper (about 3 s); 1,000 through each adapter, which only has
 * to route its not-sent failures into the same core decision. Kept small: the fault suite's other files run beside
 * this one, and some of them (leaks.test.ts) hold real 100 ms timeouts.
 */
const callsFor = (name: string) => (name.startsWith('withBackoff') ? 10_000 : 1000);
/** Calls in flight at once: enough to overlap attempts and waits, few enough for the machine's sockets. */
const BATCH = 500;
const RESERVE = 20;

/**
 * A request that never left is retried for any method, and such retries count against the budget
 * like any other. N keyless POSTs against a port that refuses every connection (a server that is down) may
 * make at most N first attempts plus the budget's reserve: retries stop when the bucket is empty, and no
 * success refills it. Attempts are counted on every call's result, since a refused connect never reaches a server.
 */
describe.each(DRIVERS)('an outage of refused connections stays bounded: $name', (driver) => {
  let server: FaultServer | undefined;
  let client: FaultClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  const CALLS = callsFor(driver.name);

  it(`${CALLS} keyless POSTs to a refusing port make at most ${CALLS} + reserve attempts`, {
    timeout: 60_000,
  }, async () => {
    server = new FaultServer();
    await server.listen();
    await server.refuse();
    const clock = new VirtualClock();
    const budget = new AuditedBudget({ reserve: RESERVE, ratio: 0.1 });
    client = driver.create(server.url, { random: () => 0.5, timers: clock.timers, now: clock.now, budget });

    const results: Settled[] = [];
    const sending = client;
    for (let start = 0; start < CALLS; start += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) =>
        sending.send({ method: 'POST', path: `/orders?n=${start + i}`, json: { n: start + i } }),
      );
      results.push(...(await Promise.all(batch)));
    }

    const attempts = results.reduce((sum, settled) => sum + (settled.result?.attempts ?? Number.NaN), 0);
    const retries = attempts - CALLS;
    // The bound, and the accounting behind it: every retry was a token taken from the bucket.
    expect(retries).toBeLessThanOrEqual(RESERVE);
    expect(retries).toBe(budget.snapshot().acquired);
    expect(budget.snapshot()).toMatchObject({ acquired: RESERVE, successes: 0, tokens: 0 });
    expect(results.every((settled) => !settled.ok)).toBe(true);
    expect(new Set(results.map((settled) => settled.result?.reason))).toEqual(new Set(['budget-exhausted']));
    // Nothing reached a server, and no wait is left behind.
    expect(server.hits).toHaveLength(0);
    expect(clock.pendingCount).toBe(0);
  });
});
