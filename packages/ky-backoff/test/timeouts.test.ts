import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENTS, KY_1_13, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { SocketServer } from './support/socket-server.ts';

/** The core's waits on the global timers (faked in the test), with the ones still pending. */
function trackedTimers() {
  const pending = new Set<unknown>();
  const timers = {
    setTimeout: (callback: () => void, ms: number) => {
      const handle = setTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout: (handle: unknown) => {
      pending.delete(handle);
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
  };
  return { timers, pending };
}

// ky's own timers (its per-attempt `timeout`, its `totalTimeout`, its own wait after a timeout) are fake here and
// moved by hand; the core's waits run on the VirtualClock. Nothing waits for real time.
describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'timeouts: %s',
  (_name, client) => {
    let server: SocketServer | undefined;
    afterEach(async () => {
      vi.useRealTimers();
      await server?.close();
      server = undefined;
    });

    const setup = async (steps: Parameters<typeof SocketServer.start>[0], options = {}, kyOptions = {}) => {
      server = await SocketServer.start(steps);
      const clock = new VirtualClock();
      const api = kyBackoff(client.ky.create({ timeout: 1000, ...kyOptions }), {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        ...options,
      }) as LooseKy;
      return { api, clock, server };
    };

    /** Sends with ky's timers faked; the server sees the first request and stays silent; ky's timeout fires. */
    const timeOut = async (server: SocketServer, send: () => Promise<unknown>, ms = 1000) => {
      // ky 2's `totalTimeout` reads `performance.now()`: faked too, so that it and the timers share one clock.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const pending = send().catch((error: unknown) => error);
      await server.received(1);
      await vi.advanceTimersByTimeAsync(ms);
      return { pending };
    };

    it("ky's `timeout` stays per attempt; the wait after it is the core's, on the caller's own signal", async () => {
      const events: number[] = [];
      const { api, clock, server } = await setup(['hang', 200], {
        onRetry: ({ delay }: { delay: number }) => void events.push(delay),
      });
      const { pending } = await timeOut(server, () => api(`${server.url}/slow`));
      expect(events).toEqual([500]);
      vi.useRealTimers();
      const response = (await pending) as Response;
      expect(response.status).toBe(200);
      expect(server.hits).toHaveLength(2);
      expect(clock.waits).toEqual([500]);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2, totalDelay: 500 });
    });

    it('the retry after ky’s own timeout goes out with exactly the headers of the first attempt', async () => {
      const { api, server } = await setup(['hang', 200, 200]);
      const { pending } = await timeOut(server, () => api(`${server.url}/slow`, { headers: { 'x-a': '1' } }));
      await vi.advanceTimersByTimeAsync(500);
      vi.useRealTimers();
      expect(getBackoffResult(await pending)).toMatchObject({ attempts: 2, reason: 'success' });
      // The next call on the instance is its own call, however the earlier one was linked.
      expect(getBackoffResult(await api(`${server.url}/next`))).toMatchObject({ attempts: 1 });
      const [first, retry] = server.hits.map((hit) => hit.headers);
      expect(retry).toEqual(first);
      expect(server.hits).toHaveLength(3);
    });

    it('with retryOnTimeout: false the timeout is final, and it is ky’s own TimeoutError', async () => {
      const { api, server } = await setup(['hang', 200], { retryOnTimeout: false });
      const error = await (await timeOut(server, () => api(`${server.url}/slow`))).pending;
      expect(kyErrorKind(client, error)).toBe('timeout');
      expect(server.hits).toHaveLength(1);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'timeout-not-retried' });
    });

    const kyRetry = { retry: { retryOnTimeout: false } };
    for (const [way, kyOptions, perRequest] of [
      ['on the instance', kyRetry, {}],
      ['per request', {}, kyRetry],
    ] as const) {
      it(`ky's own \`retry.retryOnTimeout: false\` ${way} is \`retryOnTimeout: false\``, async () => {
        const { api, server } = await setup(['hang', 200], {}, kyOptions);
        const error = await (await timeOut(server, () => api(`${server.url}/slow`, perRequest))).pending;
        expect(kyErrorKind(client, error)).toBe('timeout');
        expect(server.hits).toHaveLength(1);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'timeout-not-retried' });
      });
    }

    it('a keyless POST that times out is not sent again', async () => {
      const { api, server } = await setup(['hang', 201]);
      const { pending } = await timeOut(server, () =>
        api(`${server.url}/orders`, { method: 'post', json: { n: 1 } }),
      );
      const error = await pending;
      expect(kyErrorKind(client, error)).toBe('timeout');
      expect(server.hits).toHaveLength(1);
      expect(getBackoffResult(error)?.reason).toBe('method-not-idempotent');
    });

    it('an abort during the wait that follows a timeout rejects at once (the `signal` option, and a Request’s own signal)', async () => {
      for (const asRequest of [false, true]) {
        const { api, clock, server } = await setup(['hang', 200]);
        // The core's waits do not end by themselves here: only an abort that is heard ends the wait.
        clock.auto = false;
        const controller = new AbortController();
        const url = `${server.url}/slow`;
        const { pending } = await timeOut(server, () =>
          asRequest
            ? api(new Request(url, { signal: controller.signal }))
            : api(url, { signal: controller.signal }),
        );
        let settled = false;
        void pending.then(() => {
          settled = true;
        });
        controller.abort();
        await vi.advanceTimersByTimeAsync(0);
        expect(settled).toBe(true);
        const error = await pending;
        expect(error).toBe(controller.signal.reason);
        expect(server.hits).toHaveLength(1);
        expect(clock.pendingCount).toBe(0);
        vi.useRealTimers();
        await server.close();
      }
    });

    it('a network error on the attempt after a timeout is a network error, and is retried', async () => {
      const { api, clock, server } = await setup(['hang', 'reset', 200]);
      const { pending } = await timeOut(server, () => api(`${server.url}/slow`));
      await vi.advanceTimersByTimeAsync(500);
      await server.received(2);
      vi.useRealTimers();
      const response = (await pending) as Response;
      expect(response.status).toBe(200);
      expect(server.hits).toHaveLength(3);
      // Both waits are the core's own, on the virtual clock.
      expect(clock.waits).toEqual([500, 1000]);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
    });

    if (client.major === 2) {
      /** An afterResponse hook that says when the client has the response: only then is fake time moved. */
      const answered = () => {
        let heard: () => void = () => {};
        const promise = new Promise<void>((resolve) => {
          heard = resolve;
        });
        return { promise, hooks: { afterResponse: [() => void heard()] } };
      };

      it('`totalTimeout` bounds kyBackoff’s wait: a Retry-After longer than what is left ends the call in time, no timer left', async () => {
        server = await SocketServer.start([{ status: 503, headers: { 'retry-after': '3' } }]);
        // ky's timers and the core's waits share one fake clock here (the global timers and `Date.now`).
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
        const { timers, pending: waits } = trackedTimers();
        const response = answered();
        const instance = client.ky.create({ totalTimeout: 1000, hooks: response.hooks });
        const api = kyBackoff(instance, { random: () => 0.5, timers }) as LooseKy;
        let settled = false;
        const pending = api(`${server.url}/down`).catch((error: unknown) => error);
        void pending.finally(() => {
          settled = true;
        });
        await response.promise;
        await vi.advanceTimersByTimeAsync(1000);
        expect(settled).toBe(true);
        const error = await pending;
        expect(kyErrorKind(client, error)).toBe('http');
        expect(server.hits).toHaveLength(1);
        expect(waits.size).toBe(0);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
      });

      it('a per-request `totalTimeout` is a deadline too: a Retry-After longer than it ends the call at once', async () => {
        const { api, clock, server } = await setup([{ status: 503, headers: { 'retry-after': '3' } }, 200]);
        const error = await api(`${server.url}/down`, { totalTimeout: 1000 }).catch(
          (error: unknown) => error,
        );
        expect(kyErrorKind(client, error)).toBe('http');
        expect(server.hits).toHaveLength(1);
        expect(clock.waits).toEqual([]);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
      });

      it('a `totalTimeout` set by `.extend()` is a deadline too: a Retry-After longer than it ends the call at once', async () => {
        const { api, clock, server } = await setup([{ status: 503, headers: { 'retry-after': '3' } }, 200]);
        const extended = api.extend({ totalTimeout: 1000 }) as LooseKy;
        const error = await extended(`${server.url}/down`).catch((error: unknown) => error);
        expect(kyErrorKind(client, error)).toBe('http');
        expect(server.hits).toHaveLength(1);
        expect(clock.waits).toEqual([]);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
      });

      it('`deadline` shorter than `totalTimeout` wins', async () => {
        const { api, clock, server } = await setup([503], { deadline: 600 }, { totalTimeout: 60_000 });
        const error = await api(`${server.url}/down`).catch((error: unknown) => error);
        expect(clock.waits).toEqual([500]);
        expect(server.hits).toHaveLength(2);
        expect(getBackoffResult(error)?.reason).toBe('deadline');
      });

      it('`totalTimeout` running out during an attempt ends the call with ky’s TimeoutError, no further attempt', async () => {
        const { api, clock, server } = await setup(['hang', 200], {}, { totalTimeout: 300 });
        const error = await (await timeOut(server, () => api(`${server.url}/slow`), 300)).pending;
        expect(kyErrorKind(client, error)).toBe('timeout');
        expect(server.hits).toHaveLength(1);
        expect(clock.waits).toEqual([]);
        // ky 2.1 ends the call without asking; ky 2.0 still asks, and the core (whose deadline it is too) stops.
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
      });
    }
  },
);
