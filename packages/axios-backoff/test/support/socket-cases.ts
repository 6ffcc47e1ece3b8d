import { Readable } from 'node:stream';
import { VirtualClock } from '@backoff/test-utils';
import type { AxiosError, AxiosStatic, CreateAxiosDefaults } from 'axios';
import type { BackoffOptions, RetryEvent } from 'backoff-core';
import { afterEach, describe, expect, it } from 'vitest';
import { axiosBackoff } from '../../src/index.ts';
import type { AdapterName } from './driver.ts';
import { closedPort, type RealHandler, RealServer } from './real-server.ts';

/**
 * What only a real socket can do, against a node:http server on 127.0.0.1 with server-side counters: resets,
 * a body cut short, a refused connection, headers slower than axios's `timeout`. Backoff waits run on a virtual
 * clock; only axios's own per-attempt timeout takes real time.
 */
export function describeSocketCases(ax: AxiosStatic, adapter: AdapterName): void {
  describe(`real sockets: axios ${ax.VERSION} (${adapter} adapter)`, () => {
    let server: RealServer | undefined;
    let clock: VirtualClock;

    afterEach(async () => {
      expect(clock.pendingCount).toBe(0);
      await server?.close();
      server = undefined;
    });

    const start = (handler: RealHandler, port?: number) => {
      server = new RealServer(handler);
      return server.listen(port);
    };
    const client = (baseURL: string, options: BackoffOptions = {}, config: CreateAxiosDefaults = {}) => {
      clock = new VirtualClock();
      const events: RetryEvent[] = [];
      const instance = ax.create({ baseURL, adapter, ...config });
      axiosBackoff(instance, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        onRetry: (event) => events.push(event),
        ...options,
      });
      return { instance, events };
    };
    const codes = (events: RetryEvent[]) => events.map((event) => (event.error as AxiosError).code);
    const hits = () => server?.hits ?? [];

    it('a connection reset before the response is retried (ECONNRESET / ERR_NETWORK)', async () => {
      const base = await start((n, req, res) => (n === 1 ? req.socket.destroy() : res.end('ok')));
      const { instance, events } = client(base);
      const response = await instance.get('/reset');
      expect(response.data).toBe('ok');
      expect(hits()).toHaveLength(2);
      expect(events.map((event) => event.reason)).toEqual(['network-error']);
      expect(codes(events)).toEqual([adapter === 'http' ? 'ECONNRESET' : 'ERR_NETWORK']);
      expect(response.backoff).toMatchObject({ attempts: 2, totalDelay: 500 });
    });

    it('a connection closed in the middle of the body is retried', async () => {
      const base = await start((n, req, res) => {
        if (n > 1) return void res.end('the whole body');
        res.writeHead(200, { 'content-length': '100' });
        // Headers and the first bytes are flushed, then the server closes: the body stops short.
        res.write('the first bytes', () => req.socket.end());
      });
      const { instance, events } = client(base);
      const response = await instance.get('/cut');
      expect(response.data).toBe('the whole body');
      expect(hits()).toHaveLength(2);
      expect(events.map((event) => event.reason)).toEqual(['network-error']);
      // The http adapter's "stream has been aborted"; the fetch adapter's undici "terminated".
      expect(codes(events)).toEqual([adapter === 'http' ? 'ERR_BAD_RESPONSE' : undefined]);
    });

    it('a refused connection is retried and succeeds once the server is back', async () => {
      const port = await closedPort();
      const { instance, events } = client(`http://127.0.0.1:${port}`);
      clock.auto = false;
      const pending = instance.get('/late');
      expect(await clock.nextWait()).toBe(500);
      // Nothing listened for the first attempt; the server comes up during the wait.
      await start((_n, _req, res) => res.end('back'), port);
      clock.advance(500);
      const response = await pending;
      expect(response.data).toBe('back');
      expect(hits()).toHaveLength(1);
      expect(response.backoff).toMatchObject({ attempts: 2 });
      const [event] = events;
      expect(event?.reason).toBe('not-sent');
      const error = event?.error as AxiosError;
      expect(adapter === 'http' ? error.code : (error.cause as { code?: string }).code).toBe('ECONNREFUSED');
    });

    it("headers slower than axios's timeout: the attempt times out and is retried", async () => {
      // The first request is never answered (until the server closes); the second is answered at once.
      const base = await start((n, _req, res) => void (n > 1 && res.end('in time')));
      const { instance, events } = client(base, {}, { timeout: 250 });
      const response = await instance.get('/slow');
      expect(response.data).toBe('in time');
      expect(hits()).toHaveLength(2);
      expect(events.map((event) => event.reason)).toEqual(['timeout']);
      expect(codes(events)).toEqual([adapter === 'http' ? 'ECONNABORTED' : 'ETIMEDOUT']);
      // The backoff wait is the core's computed one, on the virtual clock; the timeout was axios's, per attempt.
      expect(clock.waits).toEqual([500]);
    });

    it('with clarifyTimeoutError the timeout is ETIMEDOUT, and still retried', async () => {
      const base = await start((n, _req, res) => void (n > 1 && res.end('in time')));
      const { instance, events } = client(
        base,
        {},
        { timeout: 250, transitional: { clarifyTimeoutError: true } },
      );
      await instance.get('/slow');
      expect(hits()).toHaveLength(2);
      expect(codes(events)).toEqual(['ETIMEDOUT']);
    });

    it('retryOnTimeout: false gives up on the first timeout', async () => {
      const base = await start((n, _req, res) => void (n > 1 && res.end('in time')));
      const { instance } = client(base, { retryOnTimeout: false }, { timeout: 250 });
      const error = (await instance.get('/slow').catch((e: unknown) => e)) as AxiosError;
      expect(error.code).toBe(adapter === 'http' ? 'ECONNABORTED' : 'ETIMEDOUT');
      expect(hits()).toHaveLength(1);
      expect(error.backoff).toMatchObject({ attempts: 1, reason: 'timeout-not-retried' });
    });

    it('a POST without an Idempotency-Key is sent once, even when the socket resets', async () => {
      const base = await start((_n, req) => req.socket.destroy());
      const { instance } = client(base);
      const error = (await instance.post('/orders', { n: 1 }).catch((e: unknown) => e)) as AxiosError;
      expect(ax.isAxiosError(error)).toBe(true);
      expect(hits()).toHaveLength(1);
      expect(error.backoff).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    });

    it('a POST with a key is retried with the same key and body; never more than retries + 1 attempts', async () => {
      const base = await start((_n, req) => req.socket.destroy());
      const { instance } = client(base, { retries: 2, idempotencyKey: 'auto' });
      const error = (await instance.post('/orders', { n: 1 }).catch((e: unknown) => e)) as AxiosError;
      expect(ax.isAxiosError(error)).toBe(true);
      expect(hits()).toHaveLength(3);
      expect(new Set(hits().map((hit) => hit.headers['idempotency-key'])).size).toBe(1);
      expect(hits().map((hit) => hit.body.toString())).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
      expect(error.backoff).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' });
    });

    it('every attempt sends the same bytes under a true Content-Length (never a stale one)', async () => {
      const base = await start((n, _req, res) => {
        res.statusCode = n < 3 ? 503 : 200;
        res.end();
      });
      const { instance } = client(base);
      // Multi-byte characters: a length counted in characters instead of bytes would show.
      await instance.put('/items', { name: 'Zoë ☕', n: 1 });
      expect(hits()).toHaveLength(3);
      const body = Buffer.from(JSON.stringify({ name: 'Zoë ☕', n: 1 }));
      for (const hit of hits()) {
        expect(hit.body.equals(body)).toBe(true);
        expect(hit.headers['content-length']).toBe(String(body.length));
      }
    });

    it('a Readable body is sent once; the reason says it cannot be replayed', async () => {
      const base = await start((_n, _req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const { instance } = client(base);
      const error = (await instance
        .put('/upload', Readable.from(['chunk-1,', 'chunk-2']))
        .catch((e: unknown) => e)) as AxiosError;
      expect(ax.isAxiosError(error)).toBe(true);
      expect(hits()).toHaveLength(1);
      expect(hits()[0]?.body.toString()).toBe('chunk-1,chunk-2');
      expect(error.backoff).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
    });
  });
}
