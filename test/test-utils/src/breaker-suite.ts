import {
  BackoffMetrics,
  type BackoffMetricsOptions,
  type BackoffOptions,
  CircuitBreaker,
  CircuitOpenError,
} from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackoffClientDriver, Settled, SuiteRequest } from './behaviour-suite.js';
import { API, API_2, type Route, ScriptedApi } from './scripted-api.js';
import { VirtualClock } from './virtual-clock.js';

/**
 * The `CircuitOpenError` a call failed with, as the client reports it: the error itself (withBackoff, ky), or the
 * `cause` of the client's own error (axios: an AxiosError with the code 'ERR_CIRCUIT_OPEN').
 */
function circuitOpen(driver: BackoffClientDriver, settled: Settled): CircuitOpenError | undefined {
  if (settled.ok) return undefined;
  if (driver.circuitOpen !== undefined) return driver.circuitOpen(settled.error);
  return settled.error instanceof CircuitOpenError ? settled.error : undefined;
}

/**
 * A ScriptedApi for one describe block: listening during its tests; after each test no wait of `clock()` may be
 * left pending (no leaked timer) and the routes are reset.
 */
function scriptedApi(origins: readonly string[], clock: () => VirtualClock): ScriptedApi {
  const api = new ScriptedApi(origins);
  beforeAll(() => api.listen());
  afterEach(() => {
    expect(clock().pendingCount).toBe(0);
    api.reset();
  });
  afterAll(() => api.close());
  return api;
}

const GET = (path: string, extra: Partial<SuiteRequest> = {}): SuiteRequest => ({
  method: 'GET',
  path,
  ...extra,
});

/** Sum of the hits of several routes: what reached the servers. */
const hits = (...routes: Route[]) => routes.reduce((sum, route) => sum + route.hits.length, 0);

/**
 * The circuit breaker through one client: trip, fail fast with nothing sent (counted on the
 * server side), one circuit per origin, half-open probes, recovery, the server's Retry-After, abort while open.
 * One virtual clock drives the waits and the breaker (through the policy's `now`).
 */
export function describeCircuitBreakerClient(driver: BackoffClientDriver): void {
  describe(`circuit breaker suite: ${driver.name}`, () => {
    let clock: VirtualClock;
    const api = scriptedApi([API, API_2], () => clock);

    /** A client on the shared clock; `breaker` may be shared with another client. */
    const client = (breaker: CircuitBreaker, options: BackoffOptions = {}, base = API) =>
      driver.create(base, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        circuitBreaker: breaker,
        ...options,
      });
    const fresh = () => {
      clock = new VirtualClock();
    };

    it('trips after consecutive failed calls, then fails fast with nothing sent', async () => {
      fresh();
      const breaker = new CircuitBreaker({ consecutiveFailures: 2 });
      const route = api.script('/down', [503]);
      const c = client(breaker, { retries: 1 });
      await c.send(GET('/down'));
      await c.send(GET('/down'));
      // Two calls of two attempts each: the failures count after the retries.
      expect(route.hits).toHaveLength(4);
      for (let i = 0; i < 3; i++) {
        const settled = await c.send(GET('/down'));
        const error = circuitOpen(driver, settled);
        expect(error).toBeInstanceOf(CircuitOpenError);
        expect(error).toMatchObject({ origin: API, nextProbeIn: 5000 });
        expect(settled.result).toMatchObject({ attempts: 0, reason: 'circuit-open' });
      }
      expect(route.hits).toHaveLength(4);
    });

    it('keeps one circuit per origin: a dead backend does not stop calls to another, even on a shared breaker', async () => {
      fresh();
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const dead = api.script('/items', [503]);
      const alive = api.script('/items', [200], API_2);
      const one = client(breaker, { retries: 0 });
      const two = client(breaker, { retries: 0 }, API_2);
      await one.send(GET('/items'));
      expect(circuitOpen(driver, await one.send(GET('/items')))).toBeInstanceOf(CircuitOpenError);
      expect(await two.send(GET('/items'))).toMatchObject({ ok: true, status: 200 });
      // A third client sharing the breaker sees the first origin open too.
      expect(circuitOpen(driver, await client(breaker, { retries: 0 }).send(GET('/items')))).toMatchObject({
        origin: API,
      });
      expect([dead.hits.length, alive.hits.length]).toEqual([1, 1]);
    });

    it.each(['x-should-retry', 'Stripe-Should-Retry'])(
      'a 503 whose %s says false still counts as a failure: the server asks for no retry, it is not well',
      async (header) => {
        fresh();
        const route = api.script('/down', [{ status: 503, headers: { [header]: 'false' } }]);
        const c = client(new CircuitBreaker({ consecutiveFailures: 2 }));
        for (let i = 0; i < 2; i++) {
          expect((await c.send(GET('/down'))).result).toMatchObject({
            attempts: 1,
            reason: 'should-retry-header',
          });
        }
        const settled = await c.send(GET('/down'));
        expect(circuitOpen(driver, settled)).toBeInstanceOf(CircuitOpenError);
        expect(route.hits).toHaveLength(2);
      },
    );

    it('4xx answers never trip it', async () => {
      fresh();
      const route = api.script('/missing', [404]);
      const c = client(new CircuitBreaker({ consecutiveFailures: 1 }), { retries: 0 });
      for (let i = 0; i < 3; i++) await c.send(GET('/missing'));
      expect(route.hits).toHaveLength(3);
    });

    it('half-open after the break: one probe goes, its success closes the circuit', async () => {
      fresh();
      const changes: string[] = [];
      const breaker = new CircuitBreaker({
        consecutiveFailures: 1,
        onStateChange: ({ from, to }) => changes.push(`${from}->${to}`),
      });
      const route = api.script('/flaky', [503, 200]);
      const c = client(breaker, { retries: 0 });
      await c.send(GET('/flaky'));
      expect(circuitOpen(driver, await c.send(GET('/flaky')))).toBeDefined();
      clock.advance(4999);
      expect(circuitOpen(driver, await c.send(GET('/flaky')))).toMatchObject({ nextProbeIn: 1 });
      clock.advance(1);
      expect(await c.send(GET('/flaky'))).toMatchObject({ ok: true, status: 200 });
      expect(await c.send(GET('/flaky'))).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(3);
      expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    });

    it('a failed probe re-opens at once with a doubled break, and the probe call stops with circuit-open', async () => {
      fresh();
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const route = api.script('/down', [503]);
      // Retries on: the probe must not wait out its retries against a backend that is still down.
      const c = client(breaker);
      await c.send(GET('/down'));
      const sent = route.hits.length;
      clock.advance(5000);
      const probe = await c.send(GET('/down'));
      expect(probe.status).toBe(503);
      expect(probe.result).toMatchObject({ attempts: 1, reason: 'circuit-open' });
      expect(route.hits).toHaveLength(sent + 1);
      expect(circuitOpen(driver, await c.send(GET('/down')))).toMatchObject({ nextProbeIn: 10_000 });
    });

    it("the tripping answer's Retry-After holds the circuit open that long", async () => {
      fresh();
      const route = api.script('/busy', [{ status: 503, headers: { 'Retry-After': '20' } }, 200]);
      const c = client(new CircuitBreaker({ consecutiveFailures: 1 }), { retries: 0 });
      await c.send(GET('/busy'));
      clock.advance(5000);
      expect(circuitOpen(driver, await c.send(GET('/busy')))).toMatchObject({ nextProbeIn: 15_000 });
      clock.advance(15_000);
      expect(await c.send(GET('/busy'))).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
    });

    it('a retry never waits into an open circuit: one that opened during the wait is not sent', async () => {
      fresh();
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const slowRoute = api.script('/slow', [503, 200]);
      const tripRoute = api.script('/trip', [503]);
      const slow = client(breaker);
      clock.auto = false;
      const pending = slow.send(GET('/slow'));
      expect(await clock.nextWait()).toBe(500);
      // Another call to the same origin trips the circuit while the first one waits.
      const trip = client(breaker, { retries: 0 }).send(GET('/trip'));
      await trip;
      clock.advance(500);
      const settled = await pending;
      expect(circuitOpen(driver, settled)).toBeInstanceOf(CircuitOpenError);
      // The reason says why the call stopped: the circuit, not the 503 it was waiting to retry.
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'circuit-open' });
      expect(hits(slowRoute, tripRoute)).toBe(2);
    });

    it("a shared store still unanswered at the deadline ends the call there with a timeout, nothing sent; the call's end reaches the store later", async () => {
      fresh();
      // Timers fire in the order they fall due: the store's answer, 5 s late, comes after the 2 s deadline.
      clock.ordered = true;
      const memory = new CircuitBreaker.MemoryStore();
      const late = <V>(value: V) =>
        new Promise<V>((resolve) => clock.timers.setTimeout(() => resolve(value), 5000));
      const recorded: string[] = [];
      const store: CircuitBreaker.Store = {
        admit: (...args) => late(memory.admit(...args)),
        record: (...args) => {
          recorded.push(args[0]);
          return memory.record(...args);
        },
        read: (origin) => memory.read(origin),
        entries: () => memory.entries(),
        replace: (circuits) => memory.replace(circuits),
      };
      const route = api.script('/up', [200]);
      const settled = await client(new CircuitBreaker({ store }), { deadline: 2000 }).send(GET('/up'));
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(settled.error).toMatchObject({ name: 'TimeoutError' });
      expect(settled.result).toMatchObject({ attempts: 0, reason: 'deadline' });
      expect(route.hits).toHaveLength(0);
      for (let turn = 0; turn < 100 && recorded.length === 0; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(recorded).toEqual([API]);
    });

    it('abort while open: an abort during a wait rejects with the abort error; an aborted call frees the probe slot', async () => {
      fresh();
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const route = api.script('/down', [503, 503, 200]);
      const c = client(breaker);
      clock.auto = false;
      const controller = new AbortController();
      const pending = c.send(GET('/down', { signal: controller.signal }));
      expect(await clock.nextWait()).toBe(500);
      await client(breaker, { retries: 0 }).send(GET('/down'));
      controller.abort();
      const settled = await pending;
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(route.hits).toHaveLength(2);
      clock.auto = true;
      clock.advance(5000);
      // An aborted caller in the half-open state: whether or not its client sent anything, the slot is free.
      const aborted = await c.send(GET('/down', { signal: AbortSignal.abort() }));
      expect(aborted.ok).toBe(false);
      expect(await c.send(GET('/down'))).toMatchObject({ ok: true, status: 200 });
    });

    it('per request: `backoff: false` bypasses the breaker, and a request override can turn it off', async () => {
      fresh();
      const route = api.script('/down', [503]);
      const c = client(new CircuitBreaker({ consecutiveFailures: 1 }), { retries: 0 });
      await c.send(GET('/down'));
      expect(circuitOpen(driver, await c.send(GET('/down')))).toBeDefined();
      await c.send(GET('/down', { backoff: false }));
      await c.send(GET('/down', { backoff: { circuitBreaker: false } }));
      expect(route.hits).toHaveLength(3);
    });
  });
}

/** A meter by shape (what `BackoffMetricsOptions.meter` takes) that keeps the attributes each ended call was counted with. */
type MeterLike = NonNullable<BackoffMetricsOptions['meter']>;

function recordingMeter(): { meter: MeterLike; ended: Record<string, string | number>[] } {
  const ended: Record<string, string | number>[] = [];
  const meter: MeterLike = {
    createHistogram: () => ({ record: () => {} }),
    createCounter: () => ({ add: (_, attributes = {}) => ended.push(attributes) }),
    createObservableGauge: () => ({ addCallback: () => {} }),
  };
  return { meter, ended };
}

/**
 * `BackoffMetrics` through one client: its counts checked against what the server saw.
 */
export function describeMetricsClient(driver: BackoffClientDriver): void {
  describe(`metrics suite: ${driver.name}`, () => {
    let clock: VirtualClock;
    const api = scriptedApi([API], () => clock);

    const client = (options: BackoffOptions) => {
      clock = new VirtualClock();
      return driver.create(API, { random: () => 0.5, timers: clock.timers, now: clock.now, ...options });
    };

    it('calls, attempts, retries, stops and waits match the server-side counts', async () => {
      const metrics = new BackoffMetrics();
      const c = client({ metrics });
      const ok = api.script('/ok', [200]);
      const flaky = api.script('/flaky', [503, 'network-error', 200]);
      const down = api.script('/down', [503]);
      const missing = api.script('/missing', [404]);
      await c.send(GET('/ok'));
      await c.send(GET('/flaky'));
      await c.send(GET('/down'));
      await c.send(GET('/missing'));
      await c.send({ method: 'POST', path: '/down', json: {} });
      const snapshot = metrics.snapshot();
      expect(snapshot.attempts).toBe(hits(ok, flaky, down, missing));
      expect(snapshot).toMatchObject({
        calls: 5,
        attempts: 1 + 3 + 4 + 1 + 1,
        retries: 2 + 3,
        stops: { success: 2, 'retries-exhausted': 1, 'not-retryable-status': 1, 'method-not-idempotent': 1 },
        attemptsPerCall: [0, 3, 0, 1, 1],
        totalWait: clock.totalWaited,
        largestWait: 500 + 1000 + 2000,
        budgetRefusals: 0,
      });
    });

    it('a call whose signal was already aborted sends nothing: one call, stopped aborted, with 0 attempts', async () => {
      const metrics = new BackoffMetrics();
      const c = client({ metrics, circuitBreaker: new CircuitBreaker() });
      const ok = api.script('/ok', [200]);
      const settled = await c.send(GET('/ok', { signal: AbortSignal.abort() }));
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      if (driver.rejectsAbortedBeforeAdapter) expect(settled.result).toBeUndefined();
      else expect(settled.result).toMatchObject({ attempts: 0, reason: 'aborted' });
      expect(ok.hits).toHaveLength(0);
      expect(metrics.snapshot()).toMatchObject({
        calls: 1,
        attempts: 0,
        retries: 0,
        attemptsPerCall: [1],
        stops: { aborted: 1 },
        circuitRefusals: 0,
      });
      // The call took no probe slot and told the breaker nothing: the next one goes as usual.
      expect(await c.send(GET('/ok'))).toMatchObject({ ok: true, status: 200 });
      expect(metrics.snapshot()).toMatchObject({ calls: 2, attempts: 1, attemptsPerCall: [1, 1] });
    });

    it('OpenTelemetry: each ended call names its method, server address and port, and why it failed', async () => {
      const { meter, ended } = recordingMeter();
      const c = client({ metrics: new BackoffMetrics({ meter }) });
      api.script('/ok', [200]);
      api.script('/down', [503]);
      await c.send(GET('/ok'));
      await c.send({ method: 'POST', path: '/down', json: {} });
      const server = {
        'url.scheme': 'http',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(API).port),
      };
      expect(ended).toEqual([
        { 'http.request.method': 'GET', ...server, 'backoff.stop_reason': 'success' },
        {
          'http.request.method': 'POST',
          ...server,
          'backoff.stop_reason': 'method-not-idempotent',
          'error.type': '503',
        },
      ]);
    });

    it('a shared BackoffMetrics counts the calls refused by an open circuit, and the budget refusals', async () => {
      const metrics = new BackoffMetrics();
      const breaker = new CircuitBreaker({ consecutiveFailures: 3 });
      const c = client({ metrics, circuitBreaker: breaker, budget: { reserve: 1 } });
      const down = api.script('/down', [503]);
      for (let i = 0; i < 5; i++) await c.send(GET('/down'));
      const snapshot = metrics.snapshot();
      // Call 1: one retry from the reserve; calls 2 and 3: refused by the budget; then the circuit is open.
      expect(snapshot).toMatchObject({
        calls: 5,
        attempts: down.hits.length,
        retries: 1,
        attemptsPerCall: [2, 2, 1],
        stops: { 'budget-exhausted': 3, 'circuit-open': 2 },
        budgetRefusals: 3,
        circuitRefusals: 2,
        circuitChanges: { open: 1, halfOpen: 0, closed: 0 },
      });
      expect(down.hits).toHaveLength(4);
    });
  });
}
