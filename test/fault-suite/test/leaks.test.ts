import { getEventListeners } from 'node:events';
import { type Settled, type SuiteRequest, VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import type { TimerProvider } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { DRIVERS, type FaultClient, type FaultDriver, FaultServer, faultPath } from '../src/index.ts';
import { activeResources, heapAfterGc, settledResources } from './support/resources.ts';

const PER_CLIENT = 2000; // x 5 clients = 10,000 logical requests
const BATCH = 100; // requests in flight at once
const WARM_UP = 400; // per client, before the heap is first measured: pools and JIT settle
/** The clients' own per-attempt timeout, real time: only the stalled requests reach it. */
const TIMEOUT = 100;
/**
 * Heap growth allowed over the 10,000 requests, after a forced GC: 5 MB. A leak of 500 bytes per request (a
 * listener and its closure, a timer handle, a retained error) would add 5 MB. Measured here: -1.5 to +1 MB, the
 * pools and V8's caches settling; the warm-up keeps their first growth out of the measure.
 */
const HEAP_BOUND = 5 * 1024 * 1024;

/** What one logical request of the mix does, by its index. */
type Role = 'ok' | 'retry' | 'reset' | 'abort-in-wait' | 'abort-in-flight' | 'timeout';
const ROLES: readonly Role[] = [
  'ok',
  'retry',
  'ok',
  'reset',
  'abort-in-wait',
  'ok',
  'timeout',
  'abort-in-flight',
];

/** Timers that abort the call as soon as its wait starts (a microtask later: the timer handle is returned). */
function abortingTimers(clock: VirtualClock, controller: AbortController): TimerProvider {
  return {
    setTimeout: (callback, ms) => {
      const handle = clock.timers.setTimeout(callback, ms);
      queueMicrotask(() => controller.abort());
      return handle;
    },
    clearTimeout: clock.timers.clearTimeout,
  };
}

interface Tally {
  readonly settled: number[];
  readonly kinds: Record<string, number>;
  listenersLeft: number;
  /** Retries made after a timeout, from onRetry. */
  timeouts: number;
}

async function runBatch(
  driver: FaultDriver,
  client: FaultClient,
  server: FaultServer,
  clock: VirtualClock,
  from: number,
  count: number,
  tally: Tally,
): Promise<void> {
  const inFlightAborts = new Map<string, AbortController>();
  const stop = server.watch((hit) => inFlightAborts.get(hit.path)?.abort());
  const calls: Promise<void>[] = [];
  const paths: string[] = [];
  for (let i = from; i < from + count; i++) {
    const role = ROLES[i % ROLES.length] as Role;
    const controller = new AbortController();
    const steps = {
      ok: [200],
      retry: [503, 503, 200],
      reset: ['reset', 200],
      'abort-in-wait': [503],
      'abort-in-flight': ['stall'],
      timeout: ['stall', 200],
    }[role];
    const path = faultPath(steps, `${driver.name.replace(/\W+/g, '-')}-${i}`);
    paths.push(path);
    if (role === 'abort-in-flight') inFlightAborts.set(path, controller);
    const request: SuiteRequest = {
      method: 'GET',
      path,
      signal: controller.signal,
      ...(role === 'abort-in-wait' ? { backoff: { timers: abortingTimers(clock, controller) } } : {}),
    };
    calls.push(
      client.send(request).then((settled: Settled) => {
        tally.settled[i] = (tally.settled[i] ?? 0) + 1;
        let kind = settled.ok ? 'ok' : driver.errorKind(settled.error);
        // On a loaded machine an attempt can time out before the server sees it: retries then run out with
        // fewer hits than the script's two 503s and a 200, and the last attempt may meet a 503 (an HTTP error).
        if (
          role === 'retry' &&
          kind === 'http' &&
          getBackoffResult(settled.ok ? undefined : settled.error)?.reason === 'retries-exhausted' &&
          server.hitsOf(path).length < 3
        ) {
          kind = 'http-after-timeouts';
        }
        // Likewise a call to be aborted in flight (when the server sees it) whose every attempt timed out first.
        if (role === 'abort-in-flight' && kind === 'timeout' && server.hitsOf(path).length === 0) {
          kind = 'timeout-before-arrival';
        }
        tally.kinds[`${role}:${kind}`] = (tally.kinds[`${role}:${kind}`] ?? 0) + 1;
        // Every listener on the caller's signal is gone once the call has settled.
        tally.listenersLeft += getEventListeners(controller.signal, 'abort').length;
      }),
    );
  }
  await Promise.all(calls);
  stop();
  // The server's record is not what is measured: drop this batch's, with its scripts.
  server.forget(paths);
}

describe('leaks: 10,000 requests with retries, aborts and timeouts', () => {
  it('leave no timer, socket or listener behind, and a bounded heap', { timeout: 120_000 }, async () => {
    const baseline = activeResources();
    const server = new FaultServer();
    await server.listen();
    const clock = new VirtualClock();
    server.now = clock.now;
    const tally: Tally = { settled: [], kinds: {}, listenersLeft: 0, timeouts: 0 };
    const clients = DRIVERS.map((driver) => ({
      driver,
      client: driver.create(
        server.url,
        {
          random: () => 0.5,
          timers: clock.timers,
          now: clock.now,
          budget: false,
          onRetry: ({ reason }) => {
            if (reason === 'timeout') tally.timeouts++;
          },
        },
        { timeout: TIMEOUT },
      ),
    }));
    // One client after another, one batch after another: 100 requests in flight, so that on a loaded 2-core
    // machine an attempt that is not stalled still finishes well within the 100 ms timeout.
    const run = async (from: number, total: number) => {
      for (const { driver, client } of clients) {
        for (let start = from; start < from + total; start += BATCH) {
          await runBatch(driver, client, server, clock, start, Math.min(BATCH, from + total - start), tally);
        }
      }
    };

    await run(0, WARM_UP);
    const heapBefore = await heapAfterGc();
    await run(WARM_UP, PER_CLIENT);
    const heapAfter = await heapAfterGc();

    // Every call settled exactly once. Aborts end as aborts, unless no attempt ever reached the server. The others
    // succeed, unless the machine is so loaded that an attempt outlives the 100 ms timeout on every try (then the
    // client's own timeout error), or timeouts before the server saw an attempt used up the retries (then the 503
    // of the last one).
    const settledCounts = tally.settled.filter((n) => n !== undefined);
    expect(settledCounts).toHaveLength(WARM_UP + PER_CLIENT);
    expect(settledCounts.every((n) => n === DRIVERS.length)).toBe(true);
    const calls = DRIVERS.length * (WARM_UP + PER_CLIENT);
    const share = (role: Role) => (calls / ROLES.length) * ROLES.filter((r) => r === role).length;
    expect(tally.kinds['abort-in-wait:abort'] ?? 0).toBe(share('abort-in-wait'));
    expect(
      (tally.kinds['abort-in-flight:abort'] ?? 0) +
        (tally.kinds['abort-in-flight:timeout-before-arrival'] ?? 0),
    ).toBe(share('abort-in-flight'));
    const allowed = new Set(['abort-in-wait:abort', 'abort-in-flight:abort']);
    for (const role of ['ok', 'retry', 'reset', 'timeout'] as const) {
      allowed.add(`${role}:ok`).add(`${role}:timeout`);
    }
    allowed.add('retry:http-after-timeouts').add('abort-in-flight:timeout-before-arrival');
    expect(Object.keys(tally.kinds).filter((kind) => !allowed.has(kind))).toEqual([]);
    // Every stalled first attempt really timed out and was retried.
    expect(tally.timeouts).toBeGreaterThanOrEqual(share('timeout'));
    expect(tally.listenersLeft).toBe(0);
    expect(clock.pendingCount).toBe(0);
    expect(heapAfter - heapBefore).toBeLessThan(HEAP_BOUND);

    for (const { client } of clients) client.close();
    await server.close();
    // Only the baseline set remains (or less of it): no socket, server, timer or immediate of ours.
    const left = await settledResources(baseline);
    const extra = Object.entries(left).filter(([type, n]) => n > (baseline[type] ?? 0));
    expect(extra).toEqual([]);
  });
});
