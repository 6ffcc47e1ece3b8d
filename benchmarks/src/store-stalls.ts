// Two pacing scenarios measured on the wall clock, counted by the server: a shared Pacer (RedisStore) whose Redis
// stalls mid-run, and a quota answering bare 429s met after an idle spell. Run with
// `pnpm --filter @backoff/benchmarks store-stalls` (about a minute of real time). It prints; it writes nothing.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pacer, withBackoff } from 'backoff-core';
import { RedisStore } from 'backoff-redis';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { createClient } from 'redis';
import { startRedisServer } from '../../packages/backoff-redis/test/support/redis-server.ts';

/**
 * A fixed-window limiter on 127.0.0.1 (its window starts at its first request): express-rate-limit with draft-8
 * headers (and its Retry-After on a 429), or the same window answering a bare 429, no header at all.
 */
async function limiter(limit: number, windowMs: number, headers: boolean) {
  const arrivals: Array<{ at: number; status: number }> = [];
  const app = express();
  app.use((_request, response, next) => {
    const arrival = { at: performance.now(), status: 0 };
    arrivals.push(arrival);
    response.on('finish', () => {
      arrival.status = response.statusCode;
    });
    next();
  });
  if (headers) {
    app.use(rateLimit({ windowMs, limit, standardHeaders: 'draft-8', legacyHeaders: false }));
  } else {
    let start = Number.NEGATIVE_INFINITY;
    let used = 0;
    app.use((_request, response, next) => {
      const now = performance.now();
      if (now >= start + windowMs) {
        start = now;
        used = 0;
      }
      if (++used > limit) response.status(429).end();
      else next();
    });
  }
  app.get('/item', (_request, response) => {
    response.send('ok');
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/item`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Tally {
  ok: number;
  refused: number;
  other: Record<string, number>;
  /** Requests the server saw, and the 429s among them. */
  requests: number;
  throttled: number;
  /** The longest stretch with no request arriving, after the first (ms). */
  silent: number;
  /** The last call's end, from the first call's start (ms). */
  last: number;
}

async function tally(
  server: Awaited<ReturnType<typeof limiter>>,
  calls: Array<() => Promise<Response>>,
  started: number,
): Promise<Tally> {
  const result: Tally = { ok: 0, refused: 0, other: {}, requests: 0, throttled: 0, silent: 0, last: 0 };
  await Promise.all(
    calls.map((call) =>
      call().then(
        (response) => {
          if (response.status === 200) result.ok++;
          else result.other[response.status] = (result.other[response.status] ?? 0) + 1;
          return response.text();
        },
        (error: { code?: string; name?: string }) => {
          if (error?.code === 'ERR_PACER_DEADLINE') result.refused++;
          else result.other[error?.name ?? 'error'] = (result.other[error?.name ?? 'error'] ?? 0) + 1;
        },
      ),
    ),
  );
  result.last = performance.now() - started;
  const at = server.arrivals.map((arrival) => arrival.at);
  for (let i = 1; i < at.length; i++)
    result.silent = Math.max(result.silent, (at[i] as number) - (at[i - 1] as number));
  result.requests = at.length;
  result.throttled = server.arrivals.filter((arrival) => arrival.status === 429).length;
  return result;
}

const show = (label: string, t: Tally, calls: number) =>
  `${label}: ${t.ok}/${calls} ok, ${t.refused} refused (ERR_PACER_DEADLINE)${Object.keys(t.other).length ? `, other ${JSON.stringify(t.other)}` : ''}; server: ${t.requests} requests, ${t.throttled} 429s, longest silence ${(t.silent / 1000).toFixed(2)} s; last done ${(t.last / 1000).toFixed(2)} s`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * 60 calls at once through one Pacer on a RedisStore, into 10 per second (draft-8 headers), each with a 10 s
 * deadline; Redis stalls (CLIENT PAUSE ALL: every command waits, data kept) `stall` ms, 1 s in (0: the control).
 */
async function stalled(redisUrl: string, stall: number, prefix: string): Promise<Tally> {
  const server = await limiter(10, 1000, true);
  const client = createClient({ url: redisUrl });
  const admin = createClient({ url: redisUrl });
  client.on('error', () => {});
  admin.on('error', () => {});
  await Promise.all([client.connect(), admin.connect()]);
  let fallbacks = 0;
  const store = new RedisStore({ client, prefix, onFallback: () => fallbacks++ });
  try {
    const send = withBackoff(fetch, { pacer: new Pacer({ store: store.pacer }), deadline: 10_000 });
    // One call first: the pacer learns the quota (9 left of 10); then 60 calls at once, 51 held in Redis.
    await (await send(server.url)).text();
    const started = performance.now();
    const calls = Array.from({ length: 60 }, () => () => send(server.url));
    if (stall > 0) {
      setTimeout(() => {
        admin.sendCommand(['CLIENT', 'PAUSE', String(stall), 'ALL']).catch(() => {});
      }, 1000);
    }
    const result = await tally(server, calls, started);
    if (stall > 0) console.error(`  (fallbacks: ${fallbacks})`);
    return result;
  } finally {
    store.close();
    await Promise.all([client.close(), admin.close()]);
    await server.close();
  }
}

/** One call, `idle` ms of nothing, then 150 calls at once into 20 per second answering bare 429s. */
async function idleThenBurst(store: Pacer.Store | undefined, idle: number): Promise<Tally> {
  const server = await limiter(20, 1000, false);
  try {
    const send = withBackoff(fetch, {
      pacer: new Pacer(store === undefined ? {} : { store }),
      retries: 20,
      budget: false,
    });
    if (idle >= 0) {
      await (await send(server.url)).text();
      await sleep(idle);
    }
    server.arrivals.length = 0;
    const started = performance.now();
    return await tally(
      server,
      Array.from({ length: 150 }, () => () => send(server.url)),
      started,
    );
  } finally {
    await server.close();
  }
}

const { values } = parseArgs({ options: { only: { type: 'string' } } });
const only = values.only?.split(',');
const redis = await startRedisServer();
try {
  if (only === undefined || only.includes('stall')) {
    console.log('## A 1.5 s Redis stall (CLIENT PAUSE ALL) under 60 held calls');
    console.log(show('control (no stall)', await stalled(redis.url, 0, 'control:'), 60));
    console.log(show('stall 1.5 s', await stalled(redis.url, 1500, 'stall:'), 60));
  }
  if (only === undefined || only.includes('idle')) {
    console.log('## Bare 429s: 1 call, 5 s idle, 150 calls (retries 20, no budget)');
    const client = createClient({ url: redis.url });
    client.on('error', () => {});
    await client.connect();
    let n = 0;
    const redisStore = () => new RedisStore({ client, prefix: `idle${++n}:` }).pacer;
    console.log(show('memory Pacer, fresh key', await idleThenBurst(undefined, -1), 150));
    console.log(show('memory Pacer, 5 s idle', await idleThenBurst(undefined, 5000), 150));
    console.log(show('RedisStore, fresh key', await idleThenBurst(redisStore(), -1), 150));
    console.log(show('RedisStore, 5 s idle', await idleThenBurst(redisStore(), 5000), 150));
    await client.close();
  }
} finally {
  await redis.stop();
}
