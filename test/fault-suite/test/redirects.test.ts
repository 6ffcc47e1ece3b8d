import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosAdapter, AxiosError } from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, type BackoffResult, getBackoffResult, withBackoff } from 'backoff-core';
import type { FetchLike } from 'backoff-core/adapter';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/**
 * A failure before any connection proves that nothing was sent only for the request's first hop. Here a real
 * server on 127.0.0.1 applies each POST and answers with a redirect to another loopback host on the same port
 * (127.0.0.2, where nothing listens): the follow-up connect is refused, or (simulated, as undici reports it) times
 * out. On the server's side, a keyless POST must arrive exactly once, on every client.
 */

interface Call {
  readonly method: 'GET' | 'POST';
  /** What the client is given: undefined for each client's default. */
  readonly fetch?: FetchLike;
  /** fetch's `redirect` mode, for the fetch-based clients. */
  readonly redirect?: RequestRedirect;
}

type Send = (url: string, call: Call, options: BackoffOptions) => Promise<unknown>;

const CLIENTS: ReadonlyArray<readonly [name: string, send: Send, fetchBased: boolean]> = [
  [
    'withBackoff(fetch)',
    (url, { method, fetch, redirect }, options) =>
      withBackoff(fetch, options)(url, {
        method,
        ...(method === 'POST' ? { body: '{"order":1}' } : {}),
        ...(redirect === undefined ? {} : { redirect }),
      }),
    true,
  ],
  ...(['http', 'fetch'] as const).map(
    (adapter) =>
      [
        `axios (${adapter} adapter)`,
        (url: string, { method, fetch, redirect }: Call, options: BackoffOptions) => {
          const instance = axios.create({
            adapter,
            ...(fetch === undefined ? {} : { env: { fetch } }),
            ...(redirect === undefined ? {} : { fetchOptions: { redirect } }),
          });
          axiosBackoff(instance, options);
          return instance.request({ url, method, ...(method === 'POST' ? { data: { order: 1 } } : {}) });
        },
        adapter === 'fetch',
      ] as const,
  ),
  ...(
    [
      ['ky 2', ky],
      ['ky 1', ky1],
    ] as const
  ).map(
    ([name, copy]) =>
      [
        name,
        (url: string, { method, fetch, redirect }: Call, options: BackoffOptions) =>
          (kyBackoff(copy as typeof ky, options) as typeof ky)(url, {
            method,
            ...(method === 'POST' ? { json: { order: 1 } } : {}),
            ...(fetch === undefined ? {} : { fetch }),
            ...(redirect === undefined ? {} : { redirect }),
          }).text(),
        true,
      ] as const,
  ),
];

/** What undici's fetch rejects with when the connect to a redirect's new location times out: no address, no port. */
function connectTimeout(): TypeError {
  const cause = Object.assign(
    new Error('Connect Timeout Error (attempted address: 127.0.0.2:80, timeout: 10000ms)'),
    {
      name: 'ConnectTimeoutError',
      code: 'UND_ERR_CONNECT_TIMEOUT',
    },
  );
  return new TypeError('fetch failed', { cause });
}

/**
 * A fetch whose first hop is real (the server applies the request and answers with its redirect) and whose
 * follow-up connect times out, as undici reports it: the only way to meet that timeout on loopback in a test.
 */
const timesOutAfterRedirect: FetchLike = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(new Request(request, { redirect: 'manual' }));
  if (response.status >= 300 && response.status < 400 && request.redirect === 'follow') {
    await response.body?.cancel();
    throw connectTimeout();
  }
  return response;
};

describe('a request redirected to a location that refuses or times out may have been applied', () => {
  let server: Server;
  let port = 0;
  /** Arrivals per path, as the server saw them. */
  const arrivals = new Map<string, number>();
  let clock: VirtualClock;
  let id = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      arrivals.set(path, (arrivals.get(path) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        const status = path.includes('/303/') ? 303 : 307;
        res.writeHead(status, { location: `http://127.0.0.2:${port}${path}/applied`, connection: 'close' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    clock.auto = false;
    expect(clock.pendingCount).toBe(0);
  });

  const options = (): BackoffOptions => {
    clock = new VirtualClock();
    return { retries: 2, budget: false, random: () => 0.5, timers: clock.timers, now: clock.now };
  };
  const settle = async (pending: Promise<unknown>) => {
    try {
      return { ok: true, result: getBackoffResult(await pending) };
    } catch (error) {
      return { ok: false, result: getBackoffResult(error) as BackoffResult | undefined };
    }
  };

  describe.each(CLIENTS)('%s', (_name, send) => {
    it.each(['localhost', '127.0.0.1'])(
      'a keyless POST to %s answered 303 and 307, then refused at the new location, arrives once',
      async (host) => {
        for (const status of [303, 307]) {
          const path = `/orders/${status}/${++id}`;
          const settled = await settle(send(`http://${host}:${port}${path}`, { method: 'POST' }, options()));
          expect(settled.ok).toBe(false);
          expect(arrivals.get(path)).toBe(1);
          expect(settled.result).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
        }
      },
    );

    it('a GET redirected to a location that refuses is still retried, as a network error', async () => {
      const path = `/items/307/${++id}`;
      const settled = await settle(send(`http://127.0.0.1:${port}${path}`, { method: 'GET' }, options()));
      expect(settled.ok).toBe(false);
      expect(arrivals.get(path)).toBe(3);
      expect(settled.result).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
    });
  });

  it("axios's `maxRedirects: 0` proves nothing for an adapter of the caller's own, which follows redirects as it likes", async () => {
    // An adapter built on fetch: fetch follows the 307 whatever axios's `maxRedirects` says.
    const own: AxiosAdapter = async (config) => {
      try {
        const response = await fetch(axios.getUri(config), {
          method: (config.method ?? 'get').toUpperCase(),
          body: config.data as string,
        });
        const data = await response.text();
        return { data, status: response.status, statusText: '', headers: {}, config, request: {} };
      } catch (error) {
        throw Object.assign(new AxiosError((error as Error).message, 'ERR_NETWORK', config, {}), {
          cause: error,
        });
      }
    };
    const path = `/orders/307/${++id}`;
    const instance = axios.create({ adapter: own, maxRedirects: 0 });
    axiosBackoff(instance, options());
    const settled = await settle(instance.post(`http://localhost:${port}${path}`, { order: 1 }));
    expect(settled.ok).toBe(false);
    expect(arrivals.get(path)).toBe(1);
    expect(settled.result).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });

  describe.each(CLIENTS.filter(([, , fetchBased]) => fetchBased))('%s', (_name, send) => {
    it.each(['localhost', '127.0.0.1'])(
      'a keyless POST to %s whose redirect then times out on connect arrives once',
      async (host) => {
        const path = `/orders/307/${++id}`;
        const call: Call = { method: 'POST', fetch: timesOutAfterRedirect };
        const settled = await settle(send(`http://${host}:${port}${path}`, call, options()));
        expect(settled.ok).toBe(false);
        expect(arrivals.get(path)).toBe(1);
        expect(settled.result).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      },
    );
  });
});

describe('a request refused on its first hop never left, and is retried for any method where that is proven', () => {
  /** A port with nothing listening: bound, then closed. */
  const closedPort = async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen({ port: 0, host: '127.0.0.1' }, resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  };
  const run = async (send: Send, url: string, call: Call) => {
    const clock = new VirtualClock();
    const options: BackoffOptions = {
      retries: 2,
      budget: false,
      random: () => 0.5,
      timers: clock.timers,
      now: clock.now,
    };
    try {
      await send(url, call, options);
    } catch (error) {
      return getBackoffResult(error);
    }
    throw new Error('expected the call to fail');
  };

  it.each(CLIENTS)('%s: an IP-literal URL whose own address and port refuse', async (_name, send) => {
    const url = `http://127.0.0.1:${await closedPort()}/orders`;
    expect(await run(send, url, { method: 'POST' })).toMatchObject({
      attempts: 3,
      reason: 'retries-exhausted',
    });
  });

  it.each(CLIENTS)('%s: a host name with redirects off (or counted, on axios http)', async (_name, send) => {
    const url = `http://localhost:${await closedPort()}/orders`;
    expect(await run(send, url, { method: 'POST', redirect: 'manual' })).toMatchObject({
      attempts: 3,
      reason: 'retries-exhausted',
    });
  });

  it.each(CLIENTS.filter(([, , fetchBased]) => fetchBased))(
    "%s: a host name under fetch's default redirect mode cannot rule a redirect out: not retried",
    async (_name, send) => {
      const url = `http://localhost:${await closedPort()}/orders`;
      expect(await run(send, url, { method: 'POST' })).toMatchObject({
        attempts: 1,
        reason: 'method-not-idempotent',
      });
    },
  );
});
