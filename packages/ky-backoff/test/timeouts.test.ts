import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENTS, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { SocketServer } from './support/socket-server.ts';

// ky's own timers (its per-attempt `timeout`, its `totalTimeout`) are fake here and moved by hand; the backoff
// waits run on the VirtualClock. Nothing waits for real time.
describe.each(CLIENTS.map((client) => [client.name, client] as const))('timeouts: %s', (_name, client) => {
  let server: SocketServer | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await server?.close();
    server = undefined;
  });

  /**
   * Sends with ky's timers faked, lets the server see the request and stay silent, then moves ky's clock by `ms`
   * so that ky's own timeout fires. Real timers come back at once: ky's retry path runs on them (its 0 ms wait).
   */
  const silence = async (server: SocketServer, send: () => Promise<unknown>, ms: number) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = send().catch((error: unknown) => error);
    await server.received(1);
    await vi.advanceTimersByTimeAsync(ms);
    vi.useRealTimers();
    return pending;
  };

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

  it("ky's `timeout` stays per attempt: a silent first attempt times out and the retry succeeds", async () => {
    const { api, clock, server } = await setup(['hang', 200]);
    const response = (await silence(server, () => api(`${server.url}/slow`), 1000)) as Response;
    expect(response.status).toBe(200);
    expect(server.hits).toHaveLength(2);
    expect(clock.waits).toEqual([500]);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, totalDelay: 500 });
  });

  it('with retryOnTimeout: false the timeout is final, and it is ky’s own TimeoutError', async () => {
    const { api, server } = await setup(['hang', 200], { retryOnTimeout: false });
    const error = await silence(server, () => api(`${server.url}/slow`), 1000);
    expect(kyErrorKind(client, error)).toBe('timeout');
    expect(server.hits).toHaveLength(1);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'timeout-not-retried' });
  });

  it('a keyless POST that times out is not sent again', async () => {
    const { api, server } = await setup(['hang', 201]);
    const error = await silence(
      server,
      () => api(`${server.url}/orders`, { method: 'post', json: { n: 1 } }),
      1000,
    );
    expect(kyErrorKind(client, error)).toBe('timeout');
    expect(server.hits).toHaveLength(1);
    expect(getBackoffResult(error)?.reason).toBe('method-not-idempotent');
  });

  if (client.major === 2) {
    it('an abort during the wait after a timeout rejects at once with the abort reason', async () => {
      const { api, clock, server } = await setup(['hang', 200]);
      clock.auto = false;
      const controller = new AbortController();
      const pending = silence(server, () => api(`${server.url}/slow`, { signal: controller.signal }), 1000);
      expect(await clock.nextWait()).toBe(500);
      controller.abort();
      const error = await pending;
      expect(kyErrorKind(client, error)).toBe('abort');
      expect(clock.pendingCount).toBe(0);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, totalDelay: 0 });
      expect(server.hits).toHaveLength(1);
    });

    it('`totalTimeout` is a deadline for the core: no wait is started that would end after it', async () => {
      const { api, clock, server } = await setup([503], {}, { totalTimeout: 1200 });
      const error = await api(`${server.url}/down`).catch((error: unknown) => error);
      expect(kyErrorKind(client, error)).toBe('http');
      // 500 ms fits in 1200; the next 1000 ms would not: the last 503 comes back at once, not ky's TimeoutError.
      expect(clock.waits).toEqual([500]);
      expect(server.hits).toHaveLength(2);
      expect(getBackoffResult(error)?.reason).toBe('deadline');
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
      const error = await silence(server, () => api(`${server.url}/slow`), 300);
      expect(kyErrorKind(client, error)).toBe('timeout');
      expect(server.hits).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
    });
  } else {
    it('ky 1: an abort during the wait after a timeout takes effect when the wait ends; nothing more is sent', async () => {
      // ky 1 shows hooks only its combined signal, which its own timeout has just aborted: the caller's abort
      // cannot be heard during this one wait (see the README). The next attempt is never sent.
      const { api, clock, server } = await setup(['hang', 200]);
      clock.auto = false;
      const controller = new AbortController();
      const pending = silence(server, () => api(`${server.url}/slow`, { signal: controller.signal }), 1000);
      expect(await clock.nextWait()).toBe(500);
      controller.abort();
      expect(clock.pendingCount).toBe(1);
      clock.advance(500);
      const error = await pending;
      // ky 1's own wait (0 ms, after ours) hears the abort and rejects with the caller's reason.
      expect(error).toBe(controller.signal.reason);
      expect(server.hits).toHaveLength(1);
    });
  }
});
