import {
  CircuitBreaker,
  type CircuitBreakerOptions,
  CircuitOpenError,
  type CircuitStateChange,
  createBackoff,
  getBackoffResult,
  RetryBudget,
} from 'backoff-core';
import { type Outcome, startCall } from 'backoff-core/adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { next, run } from './support/calls.ts';

const A = 'https://a.example';
const B = 'https://b.example';

/** A breaker on a hand-moved clock, with every state change recorded. */
function setup(options: CircuitBreakerOptions = {}) {
  let now = 1_000_000;
  const changes: CircuitStateChange[] = [];
  const breaker = new CircuitBreaker({ onStateChange: (change) => changes.push(change), ...options });
  return {
    breaker,
    changes,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    fail: (origin = A, serverDelay?: number) => breaker.record(origin, now, true, serverDelay),
    succeed: (origin = A) => breaker.record(origin, now, false),
  };
}

describe('CircuitBreaker: tripping', () => {
  it('trips on 5 consecutive failures by default, not on 4', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 4; i++) fail();
    expect(breaker.state(A, now())).toBe('closed');
    fail();
    expect(breaker.state(A, now())).toBe('open');
  });

  it('a success resets the consecutive count', () => {
    const { breaker, fail, succeed, now } = setup();
    for (let i = 0; i < 4; i++) fail();
    succeed();
    for (let i = 0; i < 4; i++) fail();
    expect(breaker.state(A, now())).toBe('closed');
  });

  it('trips on the failure ratio once the window holds minimumCalls calls', () => {
    const { breaker, fail, succeed, now } = setup({ consecutiveFailures: false, minimumCalls: 10 });
    // Alternating: 50 % failures, but the ratio may only trip from the 10th call on.
    for (let i = 0; i < 4; i++) {
      fail();
      succeed();
    }
    fail();
    expect(breaker.state(A, now())).toBe('closed');
    fail();
    // 10 calls, 6 failures: 60 % >= 50 %.
    expect(breaker.state(A, now())).toBe('open');
  });

  it('forgets calls older than the window', () => {
    const { breaker, fail, succeed, advance, now } = setup({ consecutiveFailures: false, minimumCalls: 4 });
    fail();
    fail();
    fail();
    advance(30_000);
    succeed();
    // The three old failures left the window: 1 call, 0 failures.
    fail();
    fail();
    expect(breaker.state(A, now())).toBe('closed');
    fail();
    expect(breaker.state(A, now())).toBe('open');
  });

  it('keeps one circuit per origin: a dead backend does not stop calls to another', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 5; i++) fail(A);
    expect(breaker.admit(A, now())).toBeInstanceOf(CircuitOpenError);
    expect(breaker.admit(B, now())).toBeUndefined();
  });

  it('keys by scheme, host and port, as URL#origin spells them', () => {
    const breaker = new CircuitBreaker();
    expect(breaker.origin('https://API.example:443/x?y')).toBe('https://api.example');
    expect(breaker.origin('http://api.example:8080/x')).toBe('http://api.example:8080');
    expect(breaker.origin('http://api.example/x')).not.toBe(breaker.origin('https://api.example/x'));
    expect(breaker.origin('not a url')).toBe('');
  });

  it('an unknown outcome (undefined) counts as neither success nor failure', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 4; i++) fail();
    breaker.record(A, now(), undefined);
    fail();
    expect(breaker.state(A, now())).toBe('open');
  });
});

describe('CircuitBreaker: open, half-open, closed', () => {
  it('refuses while open with the origin and the ms until the probe', () => {
    const { breaker, fail, advance, now } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(1200);
    const refused = breaker.admit(A, now());
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect(refused).toMatchObject({
      origin: A,
      nextProbeIn: 3800,
      code: 'ERR_CIRCUIT_OPEN',
      name: 'CircuitOpenError',
    });
  });

  it('after the break lets one probe through; its success closes the circuit', () => {
    const { breaker, fail, succeed, advance, now, changes } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    expect(breaker.state(A, now())).toBe('half-open');
    expect(breaker.admit(A, now())).toBeUndefined();
    // The second caller while the probe is out is refused: probes are bounded.
    expect(breaker.admit(A, now())).toMatchObject({ nextProbeIn: 0 });
    succeed();
    expect(breaker.state(A, now())).toBe('closed');
    expect(changes.map(({ from, to }) => `${from}->${to}`)).toEqual([
      'closed->open',
      'open->half-open',
      'half-open->closed',
    ]);
  });

  it('a failed probe re-opens with a doubled break, capped at maxBreakDuration', () => {
    const { breaker, fail, advance, now, changes } = setup({ maxBreakDuration: 12_000 });
    for (let i = 0; i < 5; i++) fail();
    const breaks: number[] = [];
    for (let i = 0; i < 4; i++) {
      const opened = changes.at(-1) as CircuitStateChange;
      breaks.push((opened.openUntil as number) - opened.at);
      advance((opened.openUntil as number) - now());
      expect(breaker.admit(A, now())).toBeUndefined();
      fail();
    }
    expect(breaks).toEqual([5000, 10_000, 12_000, 12_000]);
  });

  it('the Retry-After of the tripping answer sets the earliest half-open time', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 4; i++) fail();
    fail(A, 20_000);
    expect(breaker.admit(A, now())).toMatchObject({ nextProbeIn: 20_000 });
    // A shorter one never shortens the break.
    const other = setup();
    for (let i = 0; i < 5; i++) other.fail(A, 1000);
    expect(other.breaker.admit(A, other.now())).toMatchObject({ nextProbeIn: 5000 });
  });

  it('with halfOpenProbes 3, three probes go and all three must succeed', () => {
    const { breaker, fail, succeed, advance, now } = setup({ halfOpenProbes: 3 });
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    for (let i = 0; i < 3; i++) expect(breaker.admit(A, now())).toBeUndefined();
    expect(breaker.admit(A, now())).toBeInstanceOf(CircuitOpenError);
    succeed();
    succeed();
    expect(breaker.state(A, now())).toBe('half-open');
    succeed();
    expect(breaker.state(A, now())).toBe('closed');
  });

  it('a probe that ends in neither (an abort) frees its slot for the next one', () => {
    const { breaker, fail, advance, now } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    expect(breaker.admit(A, now())).toBeUndefined();
    breaker.record(A, now(), undefined);
    expect(breaker.admit(A, now())).toBeUndefined();
  });

  it('a probe that never reports frees its slot after one maximal break', () => {
    const { breaker, fail, advance, now } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    expect(breaker.admit(A, now())).toBeUndefined();
    advance(29_999);
    expect(breaker.admit(A, now())).toBeInstanceOf(CircuitOpenError);
    advance(1);
    expect(breaker.admit(A, now())).toBeUndefined();
  });

  it('results of calls that were not probes do not decide a half-open circuit', () => {
    const { breaker, fail, advance, now } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    breaker.admit(A, now());
    breaker.record(A, now(), true, undefined, false);
    expect(breaker.state(A, now())).toBe('half-open');
  });
});

describe('CircuitBreaker: snapshot and restore', () => {
  it('toJSON() round-trips through JSON into a new breaker (a cold start)', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 5; i++) fail(A);
    fail(B);
    const saved = JSON.parse(JSON.stringify(breaker));
    expect(saved.origins[A]).toMatchObject({ state: 'open', openUntil: now() + 5000, opens: 1 });
    expect(saved.origins[B]).toMatchObject({ state: 'closed', consecutiveFailures: 1 });
    const restored = new CircuitBreaker({ initialState: saved });
    expect(restored.admit(A, now() + 100)).toMatchObject({ nextProbeIn: 4900 });
    expect(restored.toJSON()).toEqual(saved);
    // B keeps its count: four more failures trip it.
    for (let i = 0; i < 4; i++) restored.record(B, now(), true);
    expect(restored.state(B, now())).toBe('open');
  });

  it('a half-open circuit comes back open, so that a probe goes first', () => {
    const { breaker, fail, advance, now } = setup();
    for (let i = 0; i < 5; i++) fail();
    advance(5000);
    breaker.admit(A, now());
    const restored = new CircuitBreaker({ initialState: breaker.toJSON() });
    expect(restored.toJSON().origins[A]?.state).toBe('open');
    expect(restored.admit(A, now())).toBeUndefined();
    expect(restored.admit(A, now())).toBeInstanceOf(CircuitOpenError);
  });

  it('rejects a snapshot that is not one', () => {
    expect(() => new CircuitBreaker({ initialState: {} as never })).toThrow(/initialState/);
  });

  it('a restored open circuit waits at most its break: an openUntil decades ahead still probes after it', () => {
    const { now } = setup();
    const year2100 = Date.UTC(2100, 0, 1);
    const saved = {
      state: 'open',
      openUntil: year2100,
      opens: 1,
      consecutiveFailures: 0,
      window: [],
    } as const;
    const restored = new CircuitBreaker({ initialState: { version: 1, origins: { [A]: saved } } });
    expect(restored.admit(A, now())).toMatchObject({ nextProbeIn: 5000 });
    expect(restored.admit(A, now() + 4999)).toBeInstanceOf(CircuitOpenError);
    expect(restored.admit(A, now() + 5000)).toBeUndefined();
    // A circuit that failed probes before it was saved keeps its doubled break (capped at maxBreakDuration).
    const doubled = new CircuitBreaker({
      initialState: { version: 1, origins: { [A]: { ...saved, opens: 3 }, [B]: { ...saved, opens: 9 } } },
    });
    expect(doubled.admit(A, now())).toMatchObject({ nextProbeIn: 20_000 });
    expect(doubled.admit(B, now())).toMatchObject({ nextProbeIn: 30_000 });
  });

  const circuit = { state: 'open', openUntil: 5000, opens: 1, consecutiveFailures: 0, window: [[0, 2, 1]] };
  it.each<[string, unknown, RegExp]>([
    [
      'an unknown state',
      { ...circuit, state: 'broken' },
      /`circuitBreaker\.initialState\.origins\["https:\/\/a\.example"\]\.state` to be 'closed', 'open' or 'half-open', got "broken"/,
    ],
    [
      'a null circuit',
      null,
      /`circuitBreaker\.initialState\.origins\["https:\/\/a\.example"\]` to be a circuit from `toJSON\(\)`, got null/,
    ],
    [
      'an openUntil that is no number',
      { ...circuit, openUntil: 'soon' },
      /\.openUntil` to be a time in ms \(a finite number\), got "soon"/,
    ],
    ['negative opens', { ...circuit, opens: -1 }, /\.opens` to be an integer from 0 to 1000000000, got -1/],
    [
      'a missing failure count',
      { ...circuit, consecutiveFailures: undefined },
      /\.consecutiveFailures` to be an integer .*got undefined/,
    ],
    ['no window', { ...circuit, window: undefined }, /\.window` to be an array/],
    [
      'a bucket with more failures than calls',
      { ...circuit, window: [[0, 1, 2]] },
      /\.window\[0\]\[2\]` to be an integer from 0 to 1, got 2/,
    ],
    [
      'a bucket that is no triple',
      { ...circuit, window: [[0, 1]] },
      /\.window\[0\]` to be \[bucketStart, calls, failures\]/,
    ],
  ])('rejects a snapshot with %s, naming the field, what it got and the fix', (_, saved, message) => {
    const make = () => new CircuitBreaker({ initialState: { version: 1, origins: { [A]: saved } } as never });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
    expect(make).toThrow(/pass what `toJSON\(\)` returned, unchanged\.$/);
  });

  it('a bad snapshot leaves the breaker as it was (all or nothing)', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 5; i++) fail(A);
    const before = breaker.toJSON();
    const bad = { version: 1, origins: { [B]: { ...circuit, state: 'closed' }, [A]: null } };
    expect(() => breaker.restore(bad as never)).toThrow(/origins\["https:\/\/a\.example"\]/);
    expect(breaker.toJSON()).toEqual(before);
    expect(breaker.state(A, now())).toBe('open');
  });
});

describe('CircuitBreaker: options', () => {
  it.each<[CircuitBreakerOptions, RegExp]>([
    [{ failureRatio: 0 }, /failureRatio/],
    [{ failureRatio: 1.5 }, /failureRatio/],
    [{ minimumCalls: 0 }, /minimumCalls/],
    [{ window: 5 }, /window/],
    [{ consecutiveFailures: 0 }, /consecutiveFailures/],
    [{ breakDuration: -1 }, /breakDuration/],
    [{ breakDuration: 10_000, maxBreakDuration: 5000 }, /maxBreakDuration/],
    [{ halfOpenProbes: 0 }, /halfOpenProbes/],
    [{ failureRatio: false, consecutiveFailures: false }, /could never trip/],
    [{ onStateChange: 1 as never }, /onStateChange/],
    [{ breakDurations: 1 } as never, /Unknown circuit breaker option `circuitBreaker.breakDurations`/],
  ])('%o throws naming the option', (options, message) => {
    expect(() => new CircuitBreaker(options)).toThrow(message);
  });

  it('the policy option takes an instance or false; true and plain options throw naming it', () => {
    expect(createBackoff({ circuitBreaker: false }).options.circuitBreaker).toBeUndefined();
    const breaker = new CircuitBreaker();
    expect(createBackoff({ circuitBreaker: breaker }).options.circuitBreaker).toBe(breaker);
    expect(() => createBackoff({ circuitBreaker: true as never })).toThrow(
      new TypeError('Expected `circuitBreaker` to be false or a `new CircuitBreaker()`, got true.'),
    );
    expect(() => createBackoff({ circuitBreaker: {} as never })).toThrow(TypeError);
    expect(() => createBackoff({ metrics: {} as never })).toThrow(/`metrics`/);
    // Each takes its own kind: a breaker given as metrics (or the other way round) is refused, naming the option.
    expect(() => createBackoff({ metrics: breaker as never })).toThrow(
      'Expected `metrics` to be false or a `new BackoffMetrics()`, got an object.',
    );
  });
});

describe('CircuitBreaker through the policy (startCall and decide)', () => {
  const failure: Outcome = { type: 'response', status: 503 };
  function policy(options: CircuitBreakerOptions = {}) {
    let now = 0;
    const breaker = new CircuitBreaker(options);
    const backoff = createBackoff({
      circuitBreaker: breaker,
      now: () => now,
      random: () => 0.5,
      budget: false,
    });
    return { backoff, breaker, advance: (ms: number) => (now += ms), now: () => now };
  }
  const request = { url: 'https://api.example/items' };

  it('counts a call once, after its retries: 5 failed calls of 4 attempts each trip it', () => {
    const { backoff, breaker, now } = policy();
    for (let call = 0; call < 5; call++) {
      const state = startCall(backoff, request);
      for (let attempt = 0; attempt < 3; attempt++) expect(next(state, failure).retry).toBe(true);
      expect(breaker.state('https://api.example', now())).toBe('closed');
      expect(next(state, failure)).toMatchObject({ retry: false, reason: 'retries-exhausted' });
    }
    expect(breaker.state('https://api.example', now())).toBe('open');
  });

  it('4xx never trips it; 501 and unknown errors neither', () => {
    const { backoff, breaker, now } = policy({ consecutiveFailures: 1 });
    for (const outcome of [
      { type: 'response', status: 404 },
      { type: 'response', status: 429 },
      { type: 'response', status: 501 },
      { type: 'error', kind: 'unknown', error: new Error('bug') },
      { type: 'error', kind: 'tls', error: new Error('cert') },
    ] as Outcome[]) {
      next(startCall(backoff.extend({ retries: 0 }), request), outcome);
    }
    expect(breaker.state('https://api.example', now())).toBe('closed');
  });

  it.each<[string, Outcome]>([
    [
      'a refused connection (not-sent)',
      { type: 'error', kind: 'not-sent', error: new Error('ECONNREFUSED') },
    ],
    ['a network error', { type: 'error', kind: 'network', error: new Error('ECONNRESET') }],
    ['a timeout', { type: 'error', kind: 'timeout', error: new Error('timeout') }],
  ])('%s after its retries counts as a failure', (_label, outcome) => {
    const { backoff, breaker, now } = policy({ consecutiveFailures: 1 });
    next(startCall(backoff.extend({ retries: 0 }), request), outcome);
    expect(breaker.state('https://api.example', now())).toBe('open');
  });

  it('refuses a call while open: startCall() throws, nothing sent, result reason circuit-open', async () => {
    const { backoff } = policy({ consecutiveFailures: 1 });
    next(startCall(backoff.extend({ retries: 0 }), request), failure);
    expect(() => startCall(backoff, request)).toThrow(CircuitOpenError);
    const { error, result, sent } = await run(backoff, [], request);
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(sent).toBe(0);
    expect(getBackoffResult(error)).toBe(result);
    expect(result).toEqual({
      attempts: 0,
      totalDelay: 0,
      reason: 'circuit-open',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('a retry never waits into an open circuit: it stops with circuit-open', () => {
    const { backoff } = policy({ consecutiveFailures: 1 });
    const slow = startCall(backoff, request);
    // Another call trips the circuit while this one is between attempts.
    next(startCall(backoff.extend({ retries: 0 }), request), failure);
    expect(next(slow, failure)).toMatchObject({ retry: false, reason: 'circuit-open' });
    // A success is still a success.
    const other = startCall(backoff, { url: 'https://other.example/' });
    expect(next(other, { type: 'response', status: 200 })).toMatchObject({ reason: 'success' });
  });

  it('a retry into an open circuit takes no budget token, and an earlier gate still reports first', () => {
    const budget = new RetryBudget({ reserve: 5 });
    const backoff = createBackoff({
      circuitBreaker: new CircuitBreaker({ consecutiveFailures: 1 }),
      budget,
      random: () => 0.5,
      now: () => 0,
    });
    const slow = startCall(backoff, request);
    const last = startCall(backoff.extend({ retries: 0 }), request);
    next(startCall(backoff.extend({ retries: 0 }), request), failure);
    expect(next(slow, failure)).toMatchObject({ retry: false, reason: 'circuit-open' });
    expect(slow.result().reason).toBe('circuit-open');
    expect(next(last, failure)).toMatchObject({ retry: false, reason: 'retries-exhausted' });
    expect(budget.snapshot()).toMatchObject({ acquired: 0, refused: 0 });
  });

  it('the circuit opening during a wait refuses the retry: the call rejects with a CircuitOpenError', async () => {
    const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
    // Another call trips the circuit while this one waits to retry.
    const trip = () => next(startCall(backoff.extend({ retries: 0 }), request), failure);
    const timers = {
      setTimeout: (callback: () => void) => {
        trip();
        queueMicrotask(callback);
      },
      clearTimeout: () => {},
    };
    const backoff = createBackoff({ circuitBreaker: breaker, timers, budget: false, now: () => 0 });
    const { error, result, sent } = await run(backoff, [failure, { type: 'response', status: 200 }], request);
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(sent).toBe(1);
    expect(result).toMatchObject({ attempts: 1, reason: 'circuit-open' });
  });

  it('a half-open probe that fails re-opens at once, without waiting out its retries', () => {
    const { backoff, breaker, advance, now } = policy({ consecutiveFailures: 1 });
    next(startCall(backoff.extend({ retries: 0 }), request), failure);
    advance(5000);
    const probe = startCall(backoff, request);
    expect(next(probe, failure)).toMatchObject({ retry: false, reason: 'circuit-open' });
    expect(breaker.state('https://api.example', now())).toBe('open');
    expect(breaker.admit('https://api.example', now())).toMatchObject({ nextProbeIn: 10_000 });
  });

  it('the tripping 503 with Retry-After holds the circuit open that long, capped by maxRetryAfter', () => {
    const { backoff, breaker, now } = policy({ consecutiveFailures: 1 });
    next(startCall(backoff.extend({ retries: 0 }), request), {
      type: 'response',
      status: 503,
      headers: { 'retry-after': '20' },
    });
    expect(breaker.admit('https://api.example', now())).toMatchObject({ nextProbeIn: 20_000 });

    const capped = policy({ consecutiveFailures: 1 });
    next(startCall(capped.backoff.extend({ retries: 0, maxRetryAfter: 8000 }), request), {
      type: 'response',
      status: 503,
      headers: { 'retry-after': '3600' },
    });
    expect(capped.breaker.admit('https://api.example', capped.now())).toMatchObject({ nextProbeIn: 8000 });
  });
});

describe('CircuitBreaker: state() only reads', () => {
  const T = Date.UTC(2026, 11, 2, 12, 0, 0);
  const saved = {
    version: 1,
    origins: { [A]: { state: 'open', openUntil: T + 3000, opens: 1, consecutiveFailures: 0, window: [] } },
  } as const;
  afterEach(() => {
    vi.useRealTimers();
  });

  it('without now (plain JavaScript) it reads by Date.now() and writes nothing into a restored open circuit', () => {
    vi.useFakeTimers({ now: T });
    const breaker = new CircuitBreaker({ initialState: saved });
    expect(breaker.state(A)).toBe('open');
    expect(breaker.toJSON()).toEqual(saved);
    expect(new CircuitBreaker({ initialState: breaker.toJSON() }).toJSON()).toEqual(saved);
    // The next call during the break is refused: nothing goes out.
    const policy = createBackoff({ circuitBreaker: breaker, now: () => T + 1000 });
    expect(() => startCall(policy, { url: `${A}/x` })).toThrow(CircuitOpenError);
    vi.setSystemTime(T + 3000);
    expect(breaker.state(A)).toBe('half-open');
  });

  it('a read with a given now leaves a restored circuit for the first admission to clamp', () => {
    const breaker = new CircuitBreaker({
      initialState: { version: 1, origins: { [A]: { ...saved.origins[A], openUntil: T + 3_600_000 } } },
    });
    expect(breaker.state(A, T)).toBe('open');
    expect(breaker.toJSON().origins[A]?.openUntil).toBe(T + 3_600_000);
    expect(breaker.admit(A, T)).toMatchObject({ nextProbeIn: 5000 });
    expect(breaker.toJSON().origins[A]?.openUntil).toBe(T + 5000);
  });

  it('a now that is no time throws, naming it, what it got and the fix', () => {
    const breaker = new CircuitBreaker({ initialState: saved });
    expect(() => breaker.state(A, 'soon' as never)).toThrow(
      new TypeError(
        'Expected `now` to be a time in ms (a finite number), got "soon": pass the clock of the breaker\'s policies (Date.now() by default), or leave it out.',
      ),
    );
    expect(() => breaker.state(A, Number.NaN)).toThrow(/got NaN/);
    expect(() => breaker.admit(A, Number.POSITIVE_INFINITY)).toThrow(/got Infinity/);
    expect(breaker.toJSON()).toEqual(saved);
  });
});

describe('CircuitBreaker: origins stay bounded', () => {
  it('keeps at most 1,000 origins, however many it is told of', () => {
    const { breaker, now } = setup();
    for (let i = 0; i < 5000; i++) breaker.record(`https://host-${i}.example`, now(), false);
    const origins = Object.keys(breaker.toJSON().origins);
    expect(origins).toHaveLength(1000);
    expect(origins.at(-1)).toBe('https://host-4999.example');
  });

  it('an open circuit is never dropped while closed ones can go', () => {
    const { breaker, fail, now } = setup();
    for (let i = 0; i < 5; i++) fail(A);
    for (let i = 0; i < 3000; i++) breaker.record(`https://host-${i}.example`, now(), false);
    expect(breaker.state(A, now())).toBe('open');
    expect(breaker.admit(A, now())).toBeInstanceOf(CircuitOpenError);
  });

  it('closed circuits with nothing counted in their window go before those with counts', () => {
    const store = new CircuitBreaker.MemoryStore({ maxOrigins: 3 });
    const { breaker, now, advance } = setup({ store });
    breaker.record(B, now(), true);
    breaker.record(A, now(), false);
    advance(30_000);
    // A's success left the window: A may go, though B is older. B still counts a failure in a row.
    breaker.record('https://c.example', now(), false);
    breaker.record('https://d.example', now(), false);
    expect(Object.keys(breaker.toJSON().origins)).toEqual([B, 'https://c.example', 'https://d.example']);
    expect(store.size).toBe(3);
  });

  it('two breakers on one store see one circuit per origin: one trips, the other refuses', () => {
    const store = new CircuitBreaker.MemoryStore();
    const one = setup({ store });
    const other = new CircuitBreaker({ store });
    for (let i = 0; i < 5; i++) one.fail(A);
    expect(other.state(A, one.now())).toBe('open');
    expect(other.admit(A, one.now())).toMatchObject({ nextProbeIn: 5000 });
  });

  it('a store option that is no store throws, naming it', () => {
    expect(() => new CircuitBreaker({ store: {} as never })).toThrow(
      'Expected `circuitBreaker.store` to be a circuit store (with admit, record, read, entries, replace), got an object.',
    );
    expect(() => new CircuitBreaker.MemoryStore({ maxOrigins: 0 })).toThrow(
      'Expected `maxOrigins` to be an integer from 1 to 1000000000, got 0.',
    );
  });
});
