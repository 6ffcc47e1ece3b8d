import { type Settled, type SuiteRequest, VirtualClock } from '@backoff/test-utils';
import type { RetryEvent } from 'backoff-core';
import { DEFAULTS } from 'backoff-core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { DRIVERS, type FaultClient, type FaultDriver, FaultServer } from '../src/index.ts';
import { CASES, type Expected, type FaultCase, START } from './support/cases.ts';

/**
 * Every client through every fault, on a real node:http server on 127.0.0.1. Backoff waits run on a VirtualClock
 * (random fixed at 0.5, so every wait is exact); the server stamps arrivals with the same clock. Only the client's
 * own per-attempt timeout, in the stall cases, takes real time (250 ms).
 */
describe.each(DRIVERS)('faults: $name', (driver) => {
  let server: FaultServer | undefined;
  let client: FaultClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
    server = undefined;
    client = undefined;
  });

  /** Runs the call while driving the virtual clock by hand: the server comes back when wait `recoverAt` starts. */
  async function withRecovery(clock: VirtualClock, call: Promise<Settled>, recoverAt: number) {
    clock.auto = false;
    const done = call.then(() => undefined);
    for (let wait = 1; ; wait++) {
      const ms = await Promise.race([done, clock.nextWait()]);
      if (ms === undefined) return call;
      if (wait === recoverAt) await server?.recover();
      clock.advance(ms);
    }
  }

  it.each(CASES)('$name', async (fault: FaultCase) => {
    server = new FaultServer();
    const base = await server.listen();
    const clock = new VirtualClock(START);
    server.now = clock.now;
    const events: RetryEvent[] = [];
    const options = {
      random: () => 0.5,
      timers: clock.timers,
      now: clock.now,
      onRetry: (event: RetryEvent) => events.push(event),
      ...fault.options,
    };
    client = driver.create(base, options, fault.transport);
    const path = '/case';
    server.script(path, fault.steps);
    const request: SuiteRequest = { method: 'GET', ...fault.request, path };

    let settled: Settled;
    if (fault.flow?.kind === 'refuse') {
      await server.refuse();
      settled = await withRecovery(clock, client.send(request), fault.flow.recoverAt);
    } else {
      if (fault.flow?.kind === 'keep-alive') {
        server.script('/warm', [200]);
        expect(await client.send({ method: 'GET', path: '/warm' })).toMatchObject({ ok: true });
        // undici puts the socket back in its pool on the next turn of the event loop (Node's agent at once).
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
      settled = await client.send(request);
    }

    const expected = fault.expect(driver);
    const hits = server.hitsOf(path);
    if (fault.flow?.kind === 'keep-alive') {
      // The first attempt really came on the kept-alive socket; a retry came on a new one.
      expect(hits.map((hit) => hit.reused)).toEqual(hits.map((_hit, i) => i === 0));
    }
    expectOutcome(driver, settled, expected);
    expect(clock.waits).toEqual(expected.waits);
    expect(clock.pendingCount).toBe(0);

    // Server-side counters: the attempts that reached the server, and nothing else.
    expect(hits).toHaveLength(expected.hits);
    // No POST is repeated without an Idempotency-Key; a keyed one sends the same key on every attempt.
    const posts = hits.filter((hit) => hit.method === 'POST');
    if (posts.some((hit) => hit.idempotencyKey === undefined)) expect(posts).toHaveLength(1);
    expect(new Set(posts.map((hit) => hit.idempotencyKey)).size).toBeLessThanOrEqual(1);
    expect(new Set(hits.map((hit) => hit.method))).toEqual(new Set(hits.length ? [request.method] : []));

    // Waits: never earlier than the server asked, never above maxRetryAfter, never past the deadline.
    const maxRetryAfter = options.maxRetryAfter ?? DEFAULTS.maxRetryAfter;
    for (const event of events) {
      if (event.serverDelay === undefined) {
        expect(event.delay).toBeLessThanOrEqual(options.maxDelay ?? DEFAULTS.maxDelay);
      } else {
        expect(event.delay).toBeGreaterThanOrEqual(event.serverDelay);
        expect(event.delay).toBeLessThanOrEqual(maxRetryAfter);
      }
    }
    expect(events.map((event) => event.delay)).toEqual(expected.waits);
    if (expected.retryReasons !== undefined) {
      expect(events.map((event) => event.reason)).toEqual(expected.retryReasons);
    }
    for (let i = 1; i < hits.length; i++) {
      const previous = hits[i - 1];
      const gap = (hits[i]?.at ?? 0) - (previous?.at ?? 0);
      if (previous?.asked !== undefined) expect(gap).toBeGreaterThanOrEqual(previous.asked);
    }
    if (fault.flow === undefined) {
      // Virtual time moves only in waits: the server saw exactly the client's waits between its attempts.
      const gaps = hits.slice(1).map((hit, i) => hit.at - (hits[i]?.at ?? 0));
      expect(gaps).toEqual(expected.waits.slice(0, gaps.length));
    }
    if (options.deadline !== undefined) {
      expect(clock.now() - START).toBeLessThanOrEqual(options.deadline);
    }
  });
});

/** The caller's view: the result's attempts and reason, and the client's own response or error type. */
function expectOutcome(driver: FaultDriver, settled: Settled, expected: Expected): void {
  expect(settled.result).toMatchObject({ attempts: expected.attempts, reason: expected.reason });
  if (expected.serverDelay !== undefined) expect(settled.result?.serverDelay).toBe(expected.serverDelay);
  const totalDelay = expected.waits.reduce((sum, ms) => sum + ms, 0);
  expect(settled.result?.totalDelay).toBe(totalDelay);
  switch (expected.outcome) {
    case 'ok':
      expect(settled).toMatchObject({ ok: true });
      expect(settled.status).toBeGreaterThanOrEqual(200);
      expect(settled.status).toBeLessThan(300);
      return;
    case 'http':
      expect(settled.status).toBe(expected.status);
      if (driver.rejectsOnHttpError) {
        expect(settled.ok).toBe(false);
        if (!settled.ok) {
          expect(driver.isOwnError(settled.error)).toBe(true);
          expect(driver.errorKind(settled.error)).toBe('http');
        }
      } else {
        expect(settled.ok).toBe(true);
      }
      return;
    case 'body':
      // The call itself succeeded (a 200, one attempt); the caller's body read got fetch's own TypeError.
      expect(settled.ok).toBe(false);
      expect(settled.status).toBe(200);
      if (!settled.ok) expect(settled.error).toBeInstanceOf(TypeError);
      return;
    default:
      expect(settled.ok).toBe(false);
      if (!settled.ok) {
        expect(driver.isOwnError(settled.error)).toBe(true);
        expect(driver.errorKind(settled.error)).toBe(expected.outcome);
      }
  }
}
