import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { context } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { attemptAttributes, type BackoffOptions } from 'backoff-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BackoffClientDriver } from './behaviour-suite.js';
import { idOf, parentOf, type ReadableSpan, SpanKind, TraceRecorder, TraceServer } from './tracing.js';
import { VirtualClock } from './virtual-clock.js';

/** `SpanStatusCode.ERROR`. */
const ERROR = 2;

/** A port nothing listens on: a server opened and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An HTTP instrumentation of the app, enabled. */
type Instrumentation = UndiciInstrumentation | HttpInstrumentation;

/** The hook that gives an instrumentation's CLIENT span the attempt's attributes, as the core README shows it. */
const startSpanHook = () => attemptAttributes(context.active());

/**
 * The app's instrumentation of `wire` (undici: Node's fetch; http: Node's http module), enabled as it is made (its
 * `enabled: false` would also make it skip every request), recording into `recorder`.
 */
function instrument(wire: 'undici' | 'http', recorder: TraceRecorder): Instrumentation {
  const instrumentation =
    wire === 'undici'
      ? new UndiciInstrumentation({ startSpanHook })
      : new HttpInstrumentation({
          startOutgoingSpanHook: startSpanHook,
          ignoreIncomingRequestHook: () => true,
        });
  instrumentation.setTracerProvider(recorder.provider);
  // The http instrumentation patches the module as it is next required.
  if (wire === 'http') createRequire(import.meta.url)('node:http');
  return instrumentation;
}

/** Orders two OpenTelemetry times (`[seconds, nanoseconds]`). */
const hrTimeOrder = (a: readonly [number, number], b: readonly [number, number]): number =>
  a[0] - b[0] || a[1] - b[1];

/** The span id a `traceparent` names. */
const spanIdIn = (traceparent: string | undefined): string | undefined => traceparent?.split('-')[2];

/**
 * The spans of the `tracer` option through one client, against a real server on 127.0.0.1: the call's span, a
 * client span per attempt after the HTTP client conventions, the waits as events, every span ended once, and the
 * trace's context on every attempt the server sees. With `wire` the app's HTTP instrumentation is active too (the
 * undici one for a client on Node's fetch, the http one for Node's http module): its span is each request's one
 * CLIENT span, under the attempt's span (then INTERNAL); the other transport's instrumentation changes nothing.
 */
export function describeTracingClient(
  driver: BackoffClientDriver,
  { wire }: { wire?: 'undici' | 'http' } = {},
): void {
  describe(`tracing suite: ${driver.name}`, () => {
    const server = new TraceServer();
    let recorder: TraceRecorder;
    let clock: VirtualClock;
    beforeAll(async () => {
      recorder = new TraceRecorder();
      await server.listen();
    });
    beforeEach(() => recorder.reset());
    afterEach(() => {
      // Nothing leaks: every span started was ended exactly once, and no wait outlived its call.
      expect(recorder.unbalanced()).toBe(0);
      expect(clock.pendingCount).toBe(0);
      server.reset();
    });
    afterAll(() => server.close());

    const client = (options: BackoffOptions = {}, base = server.base) => {
      clock = new VirtualClock();
      return driver.create(base, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        tracer: recorder.tracer,
        ...options,
      });
    };
    const ours = () => recorder.spans().filter((span) => span.instrumentationScope.name === 'backoff-test');
    const split = (spans: ReadableSpan[]) => ({
      call: spans.filter((span) => span.kind === SpanKind.INTERNAL),
      attempts: spans.filter((span) => span.kind === SpanKind.CLIENT),
    });

    it('a 503 then a 200: one call span, a client span per attempt under it, the wait an event', async () => {
      server.script('/items?q=1', [503]);
      const settled = await client().send({ method: 'GET', path: '/items?q=1' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      const { call, attempts } = split(ours());
      expect(call).toHaveLength(1);
      expect(attempts).toHaveLength(2);
      const [span] = call as [ReadableSpan];
      const port = Number(new URL(server.base).port);
      const request = {
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'server.port': port,
        'url.full': `${server.base}/items?q=1`,
      };
      expect(span.name).toBe('backoff GET');
      expect(span.attributes).toEqual({
        ...request,
        'backoff.attempts': 2,
        'backoff.reason': 'success',
        'backoff.total_delay_ms': 500,
        'http.response.status_code': 200,
      });
      expect(span.status.code).not.toBe(ERROR);
      expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
        ['backoff.wait', { 'backoff.reason': 'status', 'backoff.delay_ms': 500, 'backoff.retry': 1 }],
      ]);
      const [first, second] = attempts as [ReadableSpan, ReadableSpan];
      for (const attempt of attempts) {
        expect(attempt.name).toBe('GET');
        expect(parentOf(attempt)).toBe(idOf(span));
        expect(attempt.spanContext().traceId).toBe(span.spanContext().traceId);
      }
      expect(first.attributes).toEqual({
        ...request,
        'http.response.status_code': 503,
        'error.type': '503',
      });
      expect(first.status.code).toBe(ERROR);
      expect(second.attributes).toEqual({
        ...request,
        'http.request.resend_count': 1,
        'http.response.status_code': 200,
      });
      expect(second.status.code).not.toBe(ERROR);
    });

    it('a 404 is an error on the attempt span (a client span), and ends the call as one', async () => {
      server.script('/missing', [404]);
      await client().send({ method: 'GET', path: '/missing' });
      const { call, attempts } = split(ours());
      expect(attempts.map((span) => [span.attributes['error.type'], span.status.code])).toEqual([
        ['404', ERROR],
      ]);
      expect(call[0]?.attributes).toMatchObject({
        'error.type': '404',
        'backoff.reason': 'not-retryable-status',
      });
    });

    it('a refused connection: each attempt span has error.type, so has the call span', async () => {
      const base = `http://127.0.0.1:${await closedPort()}`;
      const settled = await client({ retries: 1 }, base).send({ method: 'GET', path: '/down' });
      expect(settled.ok).toBe(false);
      const { call, attempts } = split(ours());
      expect(attempts).toHaveLength(2);
      for (const span of attempts) {
        expect(span.attributes['error.type']).toBe('not-sent');
        expect(span.attributes['http.response.status_code']).toBeUndefined();
        expect(span.status.code).toBe(ERROR);
      }
      expect(call[0]?.attributes).toMatchObject({ 'error.type': 'not-sent', 'backoff.attempts': 2 });
      expect(call[0]?.status.code).toBe(ERROR);
    });

    it('an abort during the wait ends every span once; the call span says it was aborted', async () => {
      server.script('/slow', [503]);
      const controller = new AbortController();
      const c = client();
      clock.auto = false;
      const pending = c.send({ method: 'GET', path: '/slow', signal: controller.signal });
      await clock.nextWait();
      controller.abort();
      const settled = await pending;
      expect(settled.ok).toBe(false);
      const { call, attempts } = split(ours());
      expect(attempts).toHaveLength(1);
      expect(call[0]?.attributes).toMatchObject({ 'backoff.reason': 'aborted', 'error.type': 'aborted' });
      expect(recorder.started).toBe(2);
    });

    /** Every attribute of every span of ours, and of every event on them, as text. */
    const everything = () =>
      JSON.stringify(ours().map((span) => [span.attributes, span.events.map((event) => event.attributes)]));

    it("url.full of the call's span and of every attempt's keeps no signing secret: the conventions' query parameters are REDACTED", async () => {
      const signed =
        '/object?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Security-Token=FwoGZXIvYXdzEXAMPLE&X-Amz-Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41' +
        '&AWSAccessKeyId=AKIDOLD&Signature=oldsig&sig=azuresig&X-Goog-Signature=googsig&part=2';
      server.script(signed, [503]);
      await client().send({ method: 'GET', path: signed });
      // The server got the URL as it was: only what the spans show is redacted.
      expect(server.arrivals.map((arrival) => arrival.path)).toEqual([signed, signed]);
      const spans = ours();
      expect(spans).toHaveLength(3);
      for (const span of spans) {
        expect(span.attributes['url.full']).toBe(
          `${server.base}/object?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED` +
            '&X-Amz-Security-Token=REDACTED&X-Amz-Signature=REDACTED' +
            '&AWSAccessKeyId=REDACTED&Signature=REDACTED&sig=REDACTED&X-Goog-Signature=REDACTED&part=2',
        );
      }
      for (const secret of [
        'AKIDEXAMPLE',
        'FwoGZXIv',
        'f0e8bdb8',
        'AKIDOLD',
        'oldsig',
        'azuresig',
        'googsig',
      ]) {
        expect(everything()).not.toContain(secret);
      }
    });

    it('redactQueryParams adds query parameters of your own to the redacted ones, matched by name as a server reads it', async () => {
      const path = '/items?token=t0p-secret&api%5Fkey=k3y&Token=kept&X-Amz-Signature=s1gn&q=1';
      server.script(path, [503]);
      await client({ redactQueryParams: ['token', 'api_key'] }).send({ method: 'GET', path });
      const spans = ours();
      expect(spans).toHaveLength(3);
      for (const span of spans) {
        expect(span.attributes['url.full']).toBe(
          `${server.base}/items?token=REDACTED&api%5Fkey=REDACTED&Token=kept&X-Amz-Signature=REDACTED&q=1`,
        );
      }
      for (const secret of ['t0p-secret', 'k3y', 's1gn']) expect(everything()).not.toContain(secret);
    });

    it('the server sees a traceparent on every attempt, naming that attempt', async () => {
      server.script('/items', [503, 503]);
      await client().send({ method: 'GET', path: '/items' });
      const { call, attempts } = split(ours());
      expect(server.arrivals).toHaveLength(3);
      server.arrivals.forEach((arrival, i) => {
        expect(arrival.traceparents).toHaveLength(1);
        const named = attempts[i];
        expect(spanIdIn(arrival.traceparents[0])).toBe(named && idOf(named));
        expect(arrival.traceparents[0]?.split('-')[1]).toBe(call[0]?.spanContext().traceId);
      });
    });

    if (wire !== undefined) {
      describe(`with the ${wire} instrumentation`, () => {
        let instrumentation: Instrumentation;
        beforeAll(() => {
          instrumentation = instrument(wire, recorder);
        });
        afterAll(() => instrumentation.disable());

        it("one CLIENT span per request sent, the instrumentation's, under an INTERNAL span of ours per attempt", async () => {
          server.script('/items', [503, 503]);
          await client().send({ method: 'GET', path: '/items' });
          const spans = recorder.spans();
          const clients = spans.filter((span) => span.kind === SpanKind.CLIENT);
          // Each request the server saw has one CLIENT span: a backend counts 3 requests, not 6.
          expect(server.arrivals).toHaveLength(3);
          expect(clients).toHaveLength(3);
          expect(clients.every((span) => span.instrumentationScope.name !== 'backoff-test')).toBe(true);
          const ours = spans.filter((span) => span.instrumentationScope.name === 'backoff-test');
          const [call, ...attempts] = [
            ours.find((span) => span.name === 'backoff GET'),
            ...ours.filter((span) => span.name === 'backoff GET attempt'),
          ] as ReadableSpan[];
          expect(ours.map((span) => span.kind)).toEqual(ours.map(() => SpanKind.INTERNAL));
          expect(attempts).toHaveLength(3);
          for (const attempt of attempts) expect(parentOf(attempt)).toBe(call && idOf(call));
          expect(clients.map(parentOf).sort()).toEqual(attempts.map(idOf).sort());
          // The wire spans carry what the conventions ask of a resend, through the hook's `attemptAttributes`.
          const byStart = [...clients].sort((a, b) => hrTimeOrder(a.startTime, b.startTime));
          expect(
            byStart.map((span) => [
              span.attributes['http.request.resend_count'],
              span.attributes['http.response.status_code'],
            ]),
          ).toEqual([
            [undefined, 503],
            [1, 503],
            [2, 200],
          ]);
          // Ours still says how each attempt went, after the conventions.
          expect(attempts.map((span) => span.attributes['error.type']).sort()).toEqual([
            '503',
            '503',
            undefined,
          ]);
          // Exactly one traceparent per request (not ours and the instrumentation's both), naming the wire span.
          expect(server.arrivals.map((arrival) => arrival.traceparents.length)).toEqual([1, 1, 1]);
          expect(server.arrivals.map((arrival) => spanIdIn(arrival.traceparents[0]))).toEqual(
            byStart.map(idOf),
          );
        });
      });

      describe(`with only the ${wire === 'undici' ? 'http' : 'undici'} instrumentation (not this client's)`, () => {
        let instrumentation: Instrumentation;
        beforeAll(() => {
          instrumentation = instrument(wire === 'undici' ? 'http' : 'undici', recorder);
        });
        afterAll(() => instrumentation.disable());

        it('ours stays the CLIENT span of each request, and its traceparent is sent', async () => {
          server.script('/items', [503]);
          await client().send({ method: 'GET', path: '/items' });
          const clients = recorder.spans().filter((span) => span.kind === SpanKind.CLIENT);
          expect(server.arrivals).toHaveLength(2);
          expect(clients.map((span) => [span.instrumentationScope.name, span.name])).toEqual([
            ['backoff-test', 'GET'],
            ['backoff-test', 'GET'],
          ]);
          expect(server.arrivals.map((arrival) => spanIdIn(arrival.traceparents[0]))).toEqual(
            clients.map(idOf),
          );
        });
      });
    }
  });
}

export { idOf, parentOf, type ReadableSpan, SpanKind, TraceRecorder, TraceServer } from './tracing.js';
