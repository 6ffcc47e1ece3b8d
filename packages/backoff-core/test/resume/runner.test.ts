import { VirtualClock } from '@backoff/test-utils';
import { describe, expect, it } from 'vitest';
import {
  BackoffMetrics,
  CircuitBreaker,
  getBackoffResult,
  ResumeError,
  RetryBudget,
  withBackoff,
} from '../../src/index.ts';
import type { RetryEvent } from '../../src/run/events.ts';
import { FileServer, pattern, readAll } from './memory-server.ts';

// The runner's side of `resume`, on a virtual clock: a cut is the call's attempt failing as a network failure
// does, told to onRetry and the features, then a continuation sent through the same client.

const FILE = pattern(1000);

/** withBackoff over `server`: fetch's init headers as the request the server answers. */
function client(server: FileServer, options: Parameters<typeof withBackoff>[1] = {}) {
  const clock = new VirtualClock();
  // The memory server reads `Range` and `If-Range` as it spells them.
  const fetchFn = async (_input: unknown, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const request: Record<string, string> = {};
    for (const name of ['Range', 'If-Range']) {
      const value = headers.get(name);
      if (value !== null) request[name] = value;
    }
    return server.respond(request);
  };
  const send = withBackoff(fetchFn as typeof fetch, {
    resume: true,
    random: () => 0.5,
    timers: clock.timers,
    now: clock.now,
    ...options,
  });
  return { send, clock };
}

describe('a cut body under the runner', () => {
  it('onRetry hears each cut as a retry of the call, with the cut as its error, before the continuation goes', async () => {
    const server = new FileServer(FILE, [300, 650]);
    const events: RetryEvent[] = [];
    const { send, clock } = client(server, { onRetry: (event) => void events.push(event), jitter: 'none' });
    const response = await send('https://files.example/data.bin');
    const { bytes, error } = await readAll(response.body);
    expect(error).toBeUndefined();
    expect(bytes).toEqual(FILE);
    expect(
      events.map(({ retry, delay, reason, status, error }) => ({ retry, delay, reason, status, error })),
    ).toEqual([
      {
        retry: 1,
        delay: 1000,
        reason: 'network-error',
        status: undefined,
        error: new TypeError('terminated'),
      },
      {
        retry: 2,
        delay: 2000,
        reason: 'network-error',
        status: undefined,
        error: new TypeError('terminated'),
      },
    ]);
    expect(clock.waits).toEqual([1000, 2000]);
    expect(clock.pendingCount).toBe(0);
    // Range headers only on the continuations: the caller's request is never changed.
    expect(server.requests.map((request) => request.Range)).toEqual([
      undefined,
      'bytes=300-999',
      'bytes=650-999',
    ]);
    expect(getBackoffResult(response)).toEqual({
      attempts: 3,
      totalDelay: 3000,
      reason: 'success',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
      resumes: 2,
    });
  });

  /** A fetch whose each answer is the next of `connections`, cut after it but the last; `sent` the Last-Event-IDs. */
  const eventServer = (connections: readonly string[]) => {
    const sent: (string | null)[] = [];
    const fetchFn = async (_input: unknown, init?: RequestInit) => {
      sent.push(new Headers(init?.headers).get('last-event-id'));
      const text = new TextEncoder().encode(connections[sent.length - 1]);
      const last = sent.length === connections.length;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(text);
          if (last) controller.close();
        },
        pull(controller) {
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    return { sent, fetch: fetchFn as typeof fetch };
  };

  it("after an event stream's id was reset, a cut fails with no-event-id: the server would start over", async () => {
    const server = eventServer(['id: 1\ndata: a\n\n', 'id\ndata: b\n\n', 'id: 1\ndata: a\n\n']);
    const clock = new VirtualClock();
    const send = withBackoff(server.fetch, { resume: true, timers: clock.timers, now: clock.now });
    const response = await send('https://events.example/stream');
    const { bytes, error } = await readAll(response.body);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'no-event-id' });
    expect(new TextDecoder().decode(bytes)).toBe('id: 1\ndata: a\n\nid\ndata: b\n\n');
    expect(server.sent).toEqual([null, '1']);
  });

  it("replayEvents: an event stream's reset id reconnects without the Last-Event-ID the connection before sent", async () => {
    const connections = ['id: 1\ndata: a\n\n', 'id\ndata: b\n\n', 'data: c\n\n'];
    const server = eventServer(connections);
    const clock = new VirtualClock();
    const send = withBackoff(server.fetch, {
      resume: { replayEvents: true },
      timers: clock.timers,
      now: clock.now,
    });
    const response = await send('https://events.example/stream');
    const { bytes, error } = await readAll(response.body);
    expect(error).toBeUndefined();
    expect(new TextDecoder().decode(bytes)).toBe(connections.join(''));
    expect(server.sent).toEqual([null, '1', null]);
  });

  it('an event stream whose own retry: outlasts the deadline ends there, and spends no budget token on it', async () => {
    let connections = 0;
    const clock = new VirtualClock();
    const fetchFn = async () => {
      connections++;
      const text = new TextEncoder().encode('retry: 5000\nid: 1\ndata: a\n\n');
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(text);
        },
        pull(controller) {
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const budget = new RetryBudget();
    const send = withBackoff(fetchFn as typeof fetch, {
      resume: true,
      deadline: 3000,
      budget,
      timers: clock.timers,
      now: clock.now,
    });
    const response = await send('https://events.example/stream');
    const { error } = await readAll(response.body);
    expect(error).toEqual(new TypeError('terminated'));
    expect(connections).toBe(1);
    expect(clock.waits).toEqual([]);
    expect(budget.snapshot().acquired).toBe(0);
    expect(getBackoffResult(response)?.reason).toBe('deadline');
  });

  it('a circuit that opened meanwhile refuses the resume: the body fails with the cut, nothing more is sent', async () => {
    const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
    const server = new FileServer(FILE, [500]);
    const clock = new VirtualClock();
    const fetchFn = async (input: unknown, init?: RequestInit) =>
      String(input).endsWith('/down')
        ? new Response('down', { status: 503 })
        : server.respond(new Headers(init?.headers).has('range') ? { Range: 'bytes=500-999' } : {});
    const send = withBackoff(fetchFn as typeof fetch, {
      resume: true,
      circuitBreaker: breaker,
      timers: clock.timers,
      now: clock.now,
    });
    const response = await send('https://files.example/data.bin');
    // Another call to the origin fails before the body is read: the circuit opens.
    await send('https://files.example/down');
    expect(breaker.toJSON().origins['https://files.example']).toMatchObject({ state: 'open' });
    const { bytes, error } = await readAll(response.body);
    expect(bytes.length).toBe(500);
    // As a retry the circuit refuses: the caller gets the attempt's own error.
    expect(error).toEqual(new TypeError('terminated'));
    expect(server.requests).toHaveLength(1);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 1, resumes: 0, reason: 'circuit-open' });
  });

  it('metrics count a continuation as attempts and waits of the call, not as a call', async () => {
    const metrics = new BackoffMetrics();
    const server = new FileServer(FILE, [100, 200, 300]);
    const { send } = client(server, { metrics, jitter: 'none', retries: 3 });
    const response = await send('https://files.example/data.bin');
    await readAll(response.body);
    expect(metrics.snapshot()).toMatchObject({
      calls: 1,
      attempts: 4,
      retries: 3,
      resumes: 3,
      totalWait: 1000 + 2000 + 4000,
      stops: { success: 1 },
      attemptsPerCall: [0, 1],
    });
  });
});
