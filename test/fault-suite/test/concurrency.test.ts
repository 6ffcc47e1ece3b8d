import { type Settled, VirtualClock } from '@backoff/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { DRIVERS, type FaultClient, FaultServer } from '../src/index.ts';
import { AuditedBudget, replay } from './support/audited-budget.ts';

const CALLS = 1000;
/** Every 8th request the server gets, by arrival order over the run (retries included), fails with a 503. */
const EVERY = 8;
const BUDGET = { reserve: 30, ratio: 0.1 } as const;

describe.each(DRIVERS)('1,000 concurrent requests through one client: $name', (driver) => {
  let server: FaultServer | undefined;
  let client: FaultClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('keep the budget exact and give every caller exactly one result', { timeout: 60_000 }, async () => {
    server = new FaultServer();
    await server.listen();
    server.script('/concurrent', [{ kind: 'every', k: EVERY, status: 503 }]);
    const clock = new VirtualClock();
    const budget = new AuditedBudget(BUDGET);
    client = driver.create(server.url, { random: () => 0.5, timers: clock.timers, now: clock.now, budget });

    // Each caller's promise: how many times it settled (a promise settles once; this counts the callbacks).
    const settledTimes = new Array<number>(CALLS).fill(0);
    const results: Settled[] = [];
    const sending = client;
    await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        sending.send({ method: 'GET', path: `/concurrent?caller=${i}` }).then(
          (settled) => {
            settledTimes[i] = (settledTimes[i] ?? 0) + 1;
            results[i] = settled;
          },
          () => {
            settledTimes[i] = (settledTimes[i] ?? 0) + 1;
          },
        ),
      ),
    );

    // Every caller got exactly one result: the driver's send never rejects, so each ends in `results`.
    expect(settledTimes.every((n) => n === 1)).toBe(true);
    expect(results.filter(Boolean)).toHaveLength(CALLS);
    expect(clock.pendingCount).toBe(0);

    // The server's record: every 8th arrival failed, the others succeeded.
    const hits = server.hits;
    const failedHits = hits.filter((hit) => hit.answer === '503').length;
    expect(failedHits).toBe(Math.floor(hits.length / EVERY));
    const okHits = hits.length - failedHits;
    // Every caller's attempts reached the server under its own query, no more than retries + 1 of them.
    const perCaller = new Map<string, number>();
    for (const hit of hits) perCaller.set(hit.url, (perCaller.get(hit.url) ?? 0) + 1);
    expect(perCaller.size).toBe(CALLS);
    expect(Math.max(...perCaller.values())).toBeLessThanOrEqual(4);

    // The budget: replayed on its own from the log, every balance and every verdict is the real one's.
    const snapshot = budget.snapshot();
    const replayed = replay(budget.log, BUDGET);
    expect(budget.log.map((event) => event.tokens)).toEqual(replayed.balances);
    expect(budget.log.filter((event) => event.op === 'acquire').map((event) => event.granted)).toEqual(
      replayed.grants,
    );
    expect(snapshot.tokens).toBe(replayed.tokens);
    expect(Math.min(...budget.log.map((event) => event.tokens))).toBeGreaterThanOrEqual(0);
    expect(snapshot.tokens).toBeLessThanOrEqual(snapshot.capacity);

    // Tokens are conserved against the server's count: every granted retry is one more request the server got,
    // every success it answered is one success recorded, and each refusal ended one call.
    expect(hits.length).toBe(CALLS + snapshot.acquired);
    expect(snapshot.successes).toBe(okHits);
    // A final 503 rejects in axios and ky, and resolves in fetch: success is a 200 either way.
    const succeeded = (settled: Settled) => settled.ok && settled.status === 200;
    expect(results.filter(succeeded)).toHaveLength(okHits);
    const reasons = results.filter((settled) => !succeeded(settled)).map((settled) => settled.result?.reason);
    expect(reasons.filter((reason) => reason === 'budget-exhausted')).toHaveLength(snapshot.refused);
    expect(reasons.every((reason) => reason === 'budget-exhausted' || reason === 'retries-exhausted')).toBe(
      true,
    );
    // The attempts each caller was told about add up to what the server saw.
    const attempts = results.reduce((sum, settled) => sum + (settled.result?.attempts ?? 0), 0);
    expect(attempts).toBe(hits.length);
    // With 1 in 8 failing, the budget both granted and refused: whatever the interleaving, the first wave's 125
    // failures outrun a reserve of 30 plus 0.1 per success.
    expect(snapshot.acquired).toBeGreaterThan(0);
    expect(snapshot.refused).toBeGreaterThan(0);
  });
});
