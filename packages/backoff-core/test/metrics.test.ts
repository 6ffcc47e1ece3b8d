import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BackoffMetrics, CircuitBreaker, createBackoff, withBackoff } from 'backoff-core';
import { decide, type Outcome, runCall, startCall } from 'backoff-core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { next, run, ScriptedClient } from './support/calls.ts';

const failure: Outcome = { type: 'response', status: 503 };
const ok: Outcome = { type: 'response', status: 200 };
const request = { url: 'https://api.example/items' };
// Waits end at once; the clock moves by each wait, so totals are exact.
function clock() {
  let now = 0;
  return {
    now: () => now,
    timers: {
      setTimeout: (callback: () => void, ms: number) => {
        now += ms;
        queueMicrotask(callback);
      },
      clearTimeout: () => {},
    },
  };
}

/** Runs one call to its end on the runner, as an adapter does: `outcomes` answer its attempts in order. */
async function call(backoff: ReturnType<typeof createBackoff>, outcomes: readonly Outcome[]) {
  const { result } = await run(backoff, outcomes, request);
  return result?.reason;
}

describe('BackoffMetrics', () => {
  it('counts calls, attempts, retries, stop reasons, attempts per call and waits', async () => {
    const metrics = new BackoffMetrics();
    const backoff = createBackoff({ metrics, random: () => 0.5, jitter: 'none', ...clock() });
    await call(backoff, [ok]);
    await call(backoff, [failure, failure, ok]);
    await call(backoff, [failure, failure, failure, failure]);
    await call(backoff, [{ type: 'response', status: 404 }]);
    expect(metrics.snapshot()).toEqual({
      calls: 4,
      attempts: 1 + 3 + 4 + 1,
      retries: 2 + 3,
      stops: { success: 2, 'retries-exhausted': 1, 'not-retryable-status': 1 },
      attemptsPerCall: [0, 2, 0, 1, 1],
      totalWait: 1000 + 2000 + 1000 + 2000 + 4000,
      largestWait: 7000,
      budgetRefusals: 0,
      circuitRefusals: 0,
      hedges: 0,
      hedgeWins: 0,
      holds: 0,
      heldTime: 0,
      resumes: 0,
      circuitChanges: { open: 0, halfOpen: 0, closed: 0 },
    });
  });

  it('is shared between policies, and counts budget refusals and aborted waits', async () => {
    const metrics = new BackoffMetrics();
    const one = createBackoff({ metrics, budget: { reserve: 1 }, ...clock() });
    const two = createBackoff({ metrics, ...clock() });
    await call(one, [failure, failure]);
    await call(two, [ok]);
    // The caller aborts while the first attempt is out: the retry's wait ends at once.
    const controller = new AbortController();
    const answer = () => {
      controller.abort();
      return failure;
    };
    expect(await run(two, answer, request, controller.signal)).toMatchObject({
      error: controller.signal.reason,
    });
    expect(metrics.snapshot()).toMatchObject({
      calls: 3,
      attempts: 4,
      retries: 1,
      stops: { 'budget-exhausted': 1, success: 1, aborted: 1 },
      budgetRefusals: 1,
    });
  });

  it('counts calls refused by an open circuit (nothing sent) and the circuit changes', () => {
    const metrics = new BackoffMetrics();
    let now = 0;
    const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
    const backoff = createBackoff({ metrics, circuitBreaker: breaker, retries: 0, now: () => now });
    next(startCall(backoff, request), failure);
    expect(() => startCall(backoff, request)).toThrow(/open/);
    now += 5000;
    next(startCall(backoff, request), ok);
    expect(metrics.snapshot()).toMatchObject({
      calls: 3,
      attempts: 2,
      retries: 0,
      attemptsPerCall: [1, 2],
      stops: { 'retries-exhausted': 1, 'circuit-open': 1, success: 1 },
      circuitRefusals: 1,
      circuitChanges: { open: 1, halfOpen: 1, closed: 1 },
    });
  });

  it('counts a call once: an attempt whose answer the client revised (ky), and an onRetry that throws', async () => {
    const metrics = new BackoffMetrics();
    const backoff = createBackoff({ metrics, budget: false, ...clock() });
    // ky: fetch's 200, which an afterResponse hook turns into a 503, is decided once, as the 503.
    const revised = Object.assign(new ScriptedClient([ok, ok]), {
      answer: (_settled: unknown, outcome: Outcome) => (revised.sent === 1 ? failure : outcome),
    });
    expect(await runCall(backoff, request, revised)).toBe(ok);
    expect(revised.result).toMatchObject({ attempts: 2, reason: 'success' });
    const thrower = backoff.extend({
      onRetry: () => {
        throw new Error('no');
      },
    });
    expect(await run(thrower, [failure, ok], request)).toMatchObject({ error: new Error('no'), sent: 1 });
    expect(metrics.snapshot()).toMatchObject({ calls: 2, stops: { success: 1, 'callback-error': 1 } });
  });

  it('an async shouldRetry: the call counts once its decision resolves; an abort meanwhile counts it aborted', async () => {
    const metrics = new BackoffMetrics();
    const backoff = createBackoff({ metrics, budget: false, shouldRetry: async () => false, ...clock() });
    const decision = decide(startCall(backoff, request), failure);
    expect(metrics.snapshot().calls).toBe(0);
    await expect(decision).resolves.toMatchObject({ retry: false, reason: 'should-retry' });
    expect(metrics.snapshot()).toMatchObject({ calls: 1, stops: { 'should-retry': 1 } });
    const controller = new AbortController();
    const pending = decide(
      startCall(backoff.extend({ shouldRetry: () => new Promise<boolean>(() => {}) }), request),
      failure,
      controller.signal,
    );
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toMatchObject({ reason: 'aborted', error: new Error('gone') });
    expect(metrics.snapshot()).toMatchObject({ calls: 2, stops: { 'should-retry': 1, aborted: 1 } });
  });

  it("counting a call allocates nothing: the feature's part is one object for every call", () => {
    const metrics = new BackoffMetrics();
    const { options } = createBackoff({ budget: false });
    const feature = metrics.feature(options, []);
    expect(metrics.feature(options, [])).toBe(feature);
    const one = startCall(createBackoff({ metrics }), request);
    const other = startCall(createBackoff({ metrics }), { method: 'PUT', url: 'https://b.example/' });
    expect(feature.start(one)).toBe(feature.start(other));
  });

  it('rejects a meter that is not one', () => {
    expect(() => new BackoffMetrics({ meter: {} as never })).toThrow(/`meter`/);
  });
});

describe('BackoffMetrics into OpenTelemetry (the SDK in-memory exporter)', () => {
  let provider: MeterProvider | undefined;
  afterEach(async () => {
    await provider?.shutdown();
  });

  /** A BackoffMetrics on a fresh SDK meter, and a reader of what it exported last, by instrument name. */
  function sdk() {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 2_147_483_647 });
    provider = new MeterProvider({ readers: [reader] });
    const metrics = new BackoffMetrics({ meter: provider.getMeter('backoff-test') });
    const read = async () => {
      await reader.forceFlush();
      const exported = exporter.getMetrics().at(-1)?.scopeMetrics[0]?.metrics ?? [];
      return new Map(exported.map((metric) => [metric.descriptor.name, metric]));
    };
    return { metrics, read };
  }

  it('the retry delay histogram has bucket boundaries in seconds, so that real waits spread over them', async () => {
    const { metrics, read } = sdk();
    const backoff = createBackoff({ metrics, jitter: 'none', ...clock() });
    await call(backoff, [ok]);
    await call(backoff, [failure, ok]);
    await call(backoff, [failure, failure, failure, ok]);
    const delay = (await read()).get('backoff.call.retry_delay');
    const value = delay?.dataPoints[0]?.value as { buckets: { boundaries: number[]; counts: number[] } };
    expect(value.buckets.boundaries).toEqual([
      0, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300,
    ]);
    // 0 s (no retry), 1 s, and 1 + 2 + 4 = 7 s: three different buckets.
    const counts = value.buckets.counts;
    expect(counts[0]).toBe(1);
    expect(counts[value.buckets.boundaries.indexOf(1)]).toBe(1);
    expect(counts[value.buckets.boundaries.indexOf(10)]).toBe(1);
  });

  it('a call to a data: URL (origin "null") does not break the circuit gauge: the other origins are still observed', async () => {
    const { metrics, read } = sdk();
    const fetchWithBackoff = withBackoff(async () => new Response('ok'), {
      metrics,
      circuitBreaker: new CircuitBreaker(),
    });
    await fetchWithBackoff('data:text/plain,hello');
    await fetchWithBackoff('http://[::1]:8080/items');
    await fetchWithBackoff('http://api.example/items');
    const state = (await read()).get('backoff.circuit.state');
    const closed = (state?.dataPoints ?? []).filter(
      (point) => point.attributes['backoff.circuit.state'] === 'closed',
    );
    expect(closed.map((point) => [point.attributes, point.value])).toEqual([
      [
        {
          'backoff.circuit.state': 'closed',
          'url.scheme': 'http',
          'server.address': '::1',
          'server.port': 8080,
        },
        1,
      ],
      [
        {
          'backoff.circuit.state': 'closed',
          'url.scheme': 'http',
          'server.address': 'api.example',
          'server.port': 80,
        },
        1,
      ],
    ]);
  });

  it('follows the HTTP client conventions: method, server address and port on every call; error type on failed ones', async () => {
    const { metrics, read } = sdk();
    const fetchWithBackoff = withBackoff(
      async (input, init) => {
        // As fetch does: an aborted signal rejects at once, nothing sent.
        init?.signal?.throwIfAborted();
        const url = String(input);
        if (url.includes('down')) return new Response('', { status: 503 });
        if (url.includes('gone')) throw new TypeError('fetch failed');
        return new Response('ok');
      },
      { metrics, retries: 0, circuitBreaker: new CircuitBreaker({ consecutiveFailures: 1 }) },
    );
    const settle = (promise: Promise<unknown>) => promise.catch(() => {});
    await fetchWithBackoff('https://[2001:db8::1]/items');
    await fetchWithBackoff('http://api.example:8080/down', { method: 'POST' });
    await settle(fetchWithBackoff('https://api.example/gone', { method: 'PURGE' }));
    await settle(fetchWithBackoff('https://api.example/gone'));
    await settle(fetchWithBackoff('http://other.example/items', { signal: AbortSignal.abort() }));
    const exported = await read();
    const ended = (exported.get('backoff.call.stops')?.dataPoints ?? []).map((point) => point.attributes);
    expect(ended).toEqual([
      {
        'http.request.method': 'GET',
        'url.scheme': 'https',
        'server.address': '2001:db8::1',
        'server.port': 443,
        'backoff.stop_reason': 'success',
      },
      {
        'http.request.method': 'POST',
        'url.scheme': 'http',
        'server.address': 'api.example',
        'server.port': 8080,
        'backoff.stop_reason': 'method-not-idempotent',
        'error.type': '503',
      },
      {
        'http.request.method': '_OTHER',
        'url.scheme': 'https',
        'server.address': 'api.example',
        'server.port': 443,
        'backoff.stop_reason': 'method-not-idempotent',
        'error.type': 'network',
      },
      // The first network failure opened the circuit: the next call was refused, nothing sent.
      {
        'http.request.method': 'GET',
        'url.scheme': 'https',
        'server.address': 'api.example',
        'server.port': 443,
        'backoff.stop_reason': 'circuit-open',
        'error.type': 'circuit-open',
      },
      {
        'http.request.method': 'GET',
        'url.scheme': 'http',
        'server.address': 'other.example',
        'server.port': 80,
        'backoff.stop_reason': 'aborted',
        'error.type': 'aborted',
      },
    ]);
    // The histograms carry which request it was, not how it ended: fewer series.
    const attempts = exported.get('backoff.call.attempts')?.dataPoints ?? [];
    expect(attempts.map((point) => point.attributes)).toContainEqual({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'server.address': 'api.example',
      'server.port': 8080,
    });
    expect(attempts.every((point) => !('error.type' in point.attributes))).toBe(true);
  });

  it('names no instrument against the OpenTelemetry naming guidance: no _total, no unit in the name', async () => {
    const { metrics, read } = sdk();
    await call(createBackoff({ metrics, circuitBreaker: new CircuitBreaker(), ...clock() }), [ok]);
    const descriptors = [...(await read()).values()].map(({ descriptor }) => descriptor);
    expect(descriptors.map(({ name, unit }) => [name, unit])).toEqual([
      ['backoff.call.attempts', '{attempt}'],
      ['backoff.call.retry_delay', 's'],
      ['backoff.call.stops', '{call}'],
      ['backoff.circuit.state', '{circuit}'],
    ]);
    for (const { name } of descriptors) expect(name).toMatch(/^[a-z][a-z0-9_.]*[a-z0-9]$/);
    for (const { name } of descriptors) expect(name).not.toMatch(/_total$|_seconds$|_ms$|\.(s|ms)$/);
  });

  it('records attempts per call and retry delay histograms, stops by reason and the circuit state', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 2_147_483_647 });
    provider = new MeterProvider({ readers: [reader] });
    const metrics = new BackoffMetrics({ meter: provider.getMeter('backoff-test') });
    const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
    const backoff = createBackoff({ metrics, circuitBreaker: breaker, jitter: 'none', ...clock() });
    await call(backoff, [failure, ok]);
    await call(backoff, [failure, failure, failure, failure]);
    await reader.forceFlush();

    const exported = exporter.getMetrics().at(-1)?.scopeMetrics[0]?.metrics ?? [];
    const byName = new Map(exported.map((metric) => [metric.descriptor.name, metric]));
    expect([...byName.keys()].sort()).toEqual([
      'backoff.call.attempts',
      'backoff.call.retry_delay',
      'backoff.call.stops',
      'backoff.circuit.state',
    ]);
    const attempts = byName.get('backoff.call.attempts');
    expect(attempts?.descriptor).toMatchObject({ unit: '{attempt}' });
    expect(attempts?.dataPoints[0]?.value).toMatchObject({ count: 2, sum: 6, min: 2, max: 4 });
    const delay = byName.get('backoff.call.retry_delay');
    expect(delay?.descriptor).toMatchObject({ unit: 's' });
    expect(delay?.dataPoints[0]?.value).toMatchObject({ count: 2, sum: 1 + 7 });
    const stops = byName.get('backoff.call.stops');
    expect(
      Object.fromEntries(
        (stops?.dataPoints ?? []).map((point) => [point.attributes['backoff.stop_reason'], point.value]),
      ),
    ).toEqual({ success: 1, 'retries-exhausted': 1 });
    const state = byName.get('backoff.circuit.state');
    expect(
      (state?.dataPoints ?? []).map((point) => [point.attributes['backoff.circuit.state'], point.value]),
    ).toEqual([
      ['closed', 0],
      ['open', 1],
      ['half-open', 0],
    ]);
    expect(state?.dataPoints[0]?.attributes).toMatchObject({
      'url.scheme': 'https',
      'server.address': 'api.example',
      'server.port': 443,
    });
  });
});
