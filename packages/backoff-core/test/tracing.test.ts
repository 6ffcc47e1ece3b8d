import { VirtualClock } from '@backoff/test-utils';
import {
  describeTracingClient,
  idOf,
  parentOf,
  type ReadableSpan,
  SpanKind,
  TraceRecorder,
} from '@backoff/test-utils/tracing';
import { attemptAttributes, createBackoff, Hedge, Pacer, withBackoff } from 'backoff-core';
import { runCall } from 'backoff-core/adapter';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redactedUrl } from '../src/features/tracing/spans.ts';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describeTracingClient(withBackoffDriver, { wire: 'undici' });

const ERROR = 2;

describe('spans of withBackoff, against a scripted fetch', () => {
  let recorder: TraceRecorder;
  let clock: VirtualClock;
  beforeAll(() => {
    recorder = new TraceRecorder();
  });
  beforeEach(() => recorder.reset());
  afterEach(() => {
    expect(recorder.unbalanced()).toBe(0);
    expect(clock.pendingCount).toBe(0);
  });

  /** A fetch answering each call from `script`: a status, an error to throw, or 'hang' (until aborted). */
  const scripted = (script: (number | Error | 'hang')[]) => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      seen.push({ url: String(input), init });
      const step = script.shift() ?? 200;
      if (step instanceof Error) return Promise.reject(step);
      if (step === 'hang') {
        return new Promise((_, reject) => {
          const signal = init?.signal;
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      return Promise.resolve(new Response('ok', { status: step }));
    };
    return { fetch, seen };
  };
  const options = () => {
    clock = new VirtualClock();
    return { random: () => 0.5, timers: clock.timers, now: clock.now, tracer: recorder.tracer };
  };
  const kinds = () => {
    const spans = recorder.spans();
    return {
      call: spans.filter((span) => span.kind === SpanKind.INTERNAL),
      attempts: spans.filter((span) => span.kind === SpanKind.CLIENT),
    };
  };

  it('url.full carries no credentials, nor the values of signing query parameters', async () => {
    const { fetch } = scripted([200]);
    await withBackoff(fetch, options())('https://alice:secret@example.com:8443/a?Signature=abc&x=1');
    const { call, attempts } = kinds();
    for (const span of [...call, ...attempts]) {
      expect(span.attributes['url.full']).toBe(
        'https://REDACTED:REDACTED@example.com:8443/a?Signature=REDACTED&x=1',
      );
      expect(span.attributes).toMatchObject({ 'server.address': 'example.com', 'server.port': 8443 });
    }
    expect(redactedUrl('https://example.com/a?X-Goog-Signature=s&sig=t')).toBe(
      'https://example.com/a?X-Goog-Signature=REDACTED&sig=REDACTED',
    );
    expect(redactedUrl('http://example.com/')).toBe('http://example.com/');
  });

  it('redactedUrl: a user alone is redacted too; a name is read decoded and matched case-sensitively; the rest of the query stays byte for byte', () => {
    expect(redactedUrl('https://token@example.com/a')).toBe('https://REDACTED:REDACTED@example.com/a');
    expect(
      redactedUrl('https://example.com/a?X%2DAmz%2DSignature=s&x-amz-signature=kept&q=a+b%20c&flag&sig'),
    ).toBe('https://example.com/a?X%2DAmz%2DSignature=REDACTED&x-amz-signature=kept&q=a+b%20c&flag&sig');
    expect(redactedUrl('https://example.com/a?token=t&q=1', new Set(['token']))).toBe(
      'https://example.com/a?token=REDACTED&q=1',
    );
    expect(redactedUrl('https://example.com/a?')).toBe('https://example.com/a?');
  });

  it('the default port of the scheme is server.port when the URL names none', async () => {
    const { fetch } = scripted([200]);
    await withBackoff(fetch, options())('https://example.com/a');
    expect(kinds().attempts[0]?.attributes['server.port']).toBe(443);
  });

  it('a method the convention does not know is _OTHER, its own name kept apart, the span named HTTP', async () => {
    const { fetch } = scripted([200]);
    await withBackoff(fetch, options())('https://example.com/a', { method: 'PURGE' });
    const { call, attempts } = kinds();
    expect(attempts[0]?.name).toBe('HTTP');
    expect(call[0]?.name).toBe('backoff HTTP');
    for (const span of [...call, ...attempts]) {
      expect(span.attributes).toMatchObject({
        'http.request.method': '_OTHER',
        'http.request.method_original': 'PURGE',
      });
    }
  });

  it('a reset connection is error.type network on its attempt span', async () => {
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    });
    const { fetch } = scripted([reset, 200]);
    await withBackoff(fetch, options())('https://example.com/a');
    const { attempts, call } = kinds();
    expect(attempts.map((span) => span.attributes['error.type'])).toEqual(['network', undefined]);
    expect(attempts[0]?.status.code).toBe(ERROR);
    expect(call[0]?.events[0]?.attributes).toMatchObject({ 'backoff.reason': 'network-error' });
  });

  it('an error the core does not know is named by its own name', async () => {
    const { fetch } = scripted([new RangeError('odd')]);
    await withBackoff(fetch, options())('https://example.com/a').catch(() => {});
    expect(kinds().attempts[0]?.attributes['error.type']).toBe('RangeError');
    expect(kinds().call[0]?.attributes['error.type']).toBe('RangeError');
  });

  it('a hedge is an event on the call span, and its copy a client span of its own; the loser ends too', async () => {
    const { fetch } = scripted(['hang', 200]);
    const response = await withBackoff(fetch, { ...options(), hedge: new Hedge({ delay: 50 }) })(
      'https://example.com/a',
    );
    expect(response.status).toBe(200);
    const { call, attempts } = kinds();
    expect(call[0]?.events.map((event) => [event.name, event.attributes])).toEqual([
      ['backoff.hedge', { 'backoff.reason': 'hedge', 'backoff.delay_ms': 50, 'backoff.hedge.copy': 2 }],
    ]);
    expect(call[0]?.attributes).toMatchObject({ 'backoff.hedges': 1, 'backoff.attempts': 1 });
    expect(attempts).toHaveLength(2);
    const copy = attempts.find((span) => span.attributes['backoff.hedge.copy'] === 2);
    const first = attempts.find((span) => span.attributes['backoff.hedge.copy'] === undefined);
    expect(copy?.attributes['http.response.status_code']).toBe(200);
    expect(copy?.attributes['http.request.resend_count']).toBeUndefined();
    expect(first?.attributes['error.type']).toBe('aborted');
    for (const span of attempts) expect(parentOf(span)).toBe(call[0] && idOf(call[0]));
  });

  it('a hold of the pacer is an event on the held call span, with its reason and length', async () => {
    const limited = new Response('', { status: 429, headers: { 'Retry-After': '2' } });
    const answers = [limited, new Response('ok')];
    const fetch = () => Promise.resolve(answers.shift() ?? new Response('ok'));
    const api = withBackoff(fetch, { ...options(), pacer: new Pacer(), retries: 0 });
    await api('https://example.com/a');
    recorder.reset();
    await api('https://example.com/b');
    const [call] = kinds().call as [ReadableSpan];
    expect(call.events.map((event) => event.name)).toEqual(['backoff.hold']);
    expect(call.events[0]?.attributes).toMatchObject({
      'backoff.reason': 'rate-limit',
      'backoff.hold.key': 'https://example.com',
    });
    expect(call.events[0]?.attributes?.['backoff.delay_ms']).toBeGreaterThan(0);
  });

  it('an abort in flight ends the attempt span (aborted) and the call span', async () => {
    const { fetch, seen } = scripted(['hang']);
    const controller = new AbortController();
    const pending = withBackoff(fetch, options())('https://example.com/a', { signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(pending).rejects.toThrow();
    const { call, attempts } = kinds();
    expect(attempts[0]?.attributes['error.type']).toBe('aborted');
    expect(call[0]?.attributes).toMatchObject({ 'backoff.reason': 'aborted', 'error.type': 'aborted' });
  });

  it('a callback that throws ends the call span with callback-error', async () => {
    const { fetch } = scripted([503, 200]);
    const failing = withBackoff(fetch, {
      ...options(),
      onRetry: () => {
        throw new Error('no');
      },
    });
    await expect(failing('https://example.com/a')).rejects.toThrow('no');
    const { call, attempts } = kinds();
    expect(attempts).toHaveLength(1);
    expect(call[0]?.attributes).toMatchObject({
      'backoff.reason': 'callback-error',
      'error.type': 'callback-error',
    });
  });

  it('a client that fails on its own (no Stopped) still ends the call span', async () => {
    const policy = createBackoff(options());
    const broken = new Error('the client broke');
    const client = {
      next: () => {
        throw broken;
      },
      send: () => Promise.resolve(200),
      outcome: () => ({ type: 'response' as const, status: 200 }),
      signal: () => undefined,
      finish: (settled: { ok: boolean }) => settled,
    };
    await expect(runCall(policy, { url: 'https://example.com/a' }, client as never)).rejects.toBe(broken);
    expect(kinds().call).toHaveLength(1);
  });

  it("each send's context carries the attributes an instrumentation's CLIENT span takes: resend count, hedge copy", async () => {
    const { context } = await import('@opentelemetry/api');
    const seen: Readonly<Record<string, number>>[] = [];
    const { fetch } = scripted([503, 'hang', 200]);
    const reading = (input: string | URL | Request, init?: RequestInit) => {
      // What an instrumentation's start hook is given, as the README writes it.
      seen.push(attemptAttributes(context.active()));
      return fetch(input, init);
    };
    const api = withBackoff(reading, { ...options(), hedge: new Hedge({ delay: 50 }) });
    expect((await api('https://example.com/a')).status).toBe(200);
    expect(seen).toEqual([
      {},
      { 'http.request.resend_count': 1 },
      { 'http.request.resend_count': 1, 'backoff.hedge.copy': 2 },
    ]);
    // Outside a send there is none; given something else than a context, it says what to write.
    expect(attemptAttributes(context.active())).toEqual({});
    expect(() => attemptAttributes(context as never)).toThrow(
      'Expected `attemptAttributes` to be given the active OpenTelemetry context, got an object: write `() => attemptAttributes(context.active())`.',
    );
  });

  it('the call span is the child of the caller active span', async () => {
    const { trace, context } = await import('@opentelemetry/api');
    const { fetch } = scripted([200]);
    const api = withBackoff(fetch, options());
    const parent = recorder.tracer.startSpan('caller');
    await context.with(trace.setSpan(context.active(), parent), () => api('https://example.com/a'));
    parent.end();
    const { call } = kinds();
    expect(parentOf(call[0] as ReadableSpan)).toBe(parent.spanContext().spanId);
  });
});
