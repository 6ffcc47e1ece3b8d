import { VirtualClock } from '@backoff/test-utils/virtual-clock';
import type { BackoffOptions, RetryEvent } from 'backoff-core';
import { createClient, type PageClient } from './clients.js';
import { API, type ScriptedWorker, type Step } from './scripted-worker.js';
import type { ClientName, Observation, Settled } from './types.js';

/** What a case gets: clients on one virtual clock (random fixed at 0.5), and the worker's scripts. */
export interface CaseContext {
  readonly clock: VirtualClock;
  /** A client with backoff on the case's clock; `options` are laid over `{ random: 0.5, timers, now }`. */
  client(options?: BackoffOptions): PageClient;
  script(path: string, steps: readonly Step[]): void;
}

type Case = (context: CaseContext) => Promise<{ settled: Settled[]; extra?: unknown }>;

/**
 * The shared behaviour suite's cases (test/test-utils/src/behaviour-suite.ts) that apply in a page, each
 * run the same way for every client. They only act and record; test/behaviour.test.ts asserts on the record.
 */
export const CASES = {
  '503-503-200': async ({ client, script }) => {
    script('/items', [503, 503, 200]);
    return { settled: [await client().send({ method: 'GET', path: '/items' })] };
  },
  'jitter-equal-and-none': async ({ client, script }) => {
    script('/items', [500, 502, 504, 200]);
    script('/other', [503, 503, 200]);
    const equal = await client({ jitter: 'equal' }).send({ method: 'GET', path: '/items' });
    const none = await client({ jitter: 'none', baseDelay: 100, factor: 3 }).send({
      method: 'GET',
      path: '/other',
    });
    return { settled: [equal, none] };
  },
  'retry-after-seconds': async ({ client, script }) => {
    script('/limited', [{ status: 429, headers: { 'Retry-After': '2' } }, 200]);
    return { settled: [await client().send({ method: 'GET', path: '/limited' })] };
  },
  'retry-after-date': async ({ client, clock, script }) => {
    const date = new Date(clock.now() + 3000).toUTCString();
    script('/limited', [{ status: 429, headers: { 'Retry-After': date } }, 200]);
    return { settled: [await client().send({ method: 'GET', path: '/limited' })] };
  },
  'retry-after-too-long': async ({ client, script }) => {
    script('/limited', [{ status: 429, headers: { 'Retry-After': '120' } }, 200]);
    return { settled: [await client().send({ method: 'GET', path: '/limited' })] };
  },
  'retry-after-malformed': async ({ client, script }) => {
    script('/limited', [{ status: 503, headers: { 'Retry-After': '1.5' } }, 200]);
    return { settled: [await client().send({ method: 'GET', path: '/limited' })] };
  },
  'statuses-not-retried': async ({ client, script }) => {
    const settled: Settled[] = [];
    for (const status of [400, 401, 403, 404, 422, 501]) {
      script(`/status-${status}`, [status, 200]);
      settled.push(await client().send({ method: 'GET', path: `/status-${status}` }));
    }
    return { settled };
  },
  'retries-exhausted': async ({ client, script }) => {
    script('/down', [503]);
    return { settled: [await client({ retries: 2 }).send({ method: 'GET', path: '/down' })] };
  },
  deadline: async ({ client, script }) => {
    script('/down', [503]);
    return { settled: [await client({ deadline: 1200 }).send({ method: 'GET', path: '/down' })] };
  },
  'network-error-retried': async ({ client, script }) => {
    script('/flaky', ['network-error', 200]);
    return { settled: [await client().send({ method: 'GET', path: '/flaky' })] };
  },
  'network-error-every-attempt': async ({ client, script }) => {
    script('/gone', ['network-error']);
    return { settled: [await client({ retries: 2 }).send({ method: 'GET', path: '/gone' })] };
  },
  'put-delete-retried-patch-not': async ({ client, script }) => {
    script('/put', [503, 200]);
    script('/delete', [503, 204]);
    script('/patch', [503, 200]);
    return {
      settled: [
        await client().send({ method: 'PUT', path: '/put', json: { n: 1 } }),
        await client().send({ method: 'DELETE', path: '/delete' }),
        await client().send({ method: 'PATCH', path: '/patch', json: { n: 1 } }),
      ],
    };
  },
  '413-only-with-timing-header': async ({ client, script }) => {
    script('/big', [{ status: 413, headers: { 'Retry-After': '1' } }, 200]);
    script('/too-big', [413, 200]);
    return {
      settled: [
        await client().send({ method: 'PUT', path: '/big', json: {} }),
        await client().send({ method: 'PUT', path: '/too-big', json: {} }),
      ],
    };
  },
  'post-without-key-not-retried': async ({ client, script }) => {
    script('/orders', [503, 200]);
    script('/broken', ['network-error', 200]);
    return {
      settled: [
        await client().send({ method: 'POST', path: '/orders', json: { n: 1 } }),
        await client().send({ method: 'POST', path: '/broken', json: { n: 1 } }),
      ],
    };
  },
  'post-with-key-retried': async ({ client, script }) => {
    script('/orders', [503, 'network-error', 201]);
    const headers = { 'idempotency-key': '"k-1"' };
    return { settled: [await client().send({ method: 'POST', path: '/orders', headers, json: { n: 1 } })] };
  },
  'idempotency-key-auto': async ({ client, script }) => {
    script('/orders', [503, 503, 201]);
    script('/orders2', [201]);
    const c = client({ idempotencyKey: 'auto' });
    return {
      settled: [
        await c.send({ method: 'POST', path: '/orders', json: { n: 1 } }),
        await c.send({ method: 'POST', path: '/orders2', json: { n: 2 } }),
      ],
    };
  },
  '409-only-with-key': async ({ client, script }) => {
    script('/keyed', [409, 200]);
    script('/plain', [409, 200]);
    return {
      settled: [
        await client().send({ method: 'POST', path: '/keyed', headers: { 'Idempotency-Key': '"a"' } }),
        await client().send({ method: 'PUT', path: '/plain' }),
      ],
    };
  },
  'nothing-added-by-default': async ({ client, script }) => {
    script('/items', [503, 200]);
    return {
      settled: [
        await client({ idempotencyKey: 'auto' }).send({ method: 'GET', path: '/items' }),
        await client().send({ method: 'POST', path: '/items', json: {} }),
      ],
    };
  },
  'per-request-override': async ({ client, script }) => {
    script('/off', [503, 200]);
    script('/once', [503]);
    return {
      settled: [
        await client().send({ method: 'GET', path: '/off', backoff: false }),
        await client().send({ method: 'GET', path: '/once', backoff: { retries: 1, jitter: 'none' } }),
      ],
    };
  },
  'on-retry-events': async ({ client, script }) => {
    script('/items', [503, { status: 429, headers: { 'retry-after': '1' } }, 200]);
    const events: RetryEvent[] = [];
    const settled = await client({ onRetry: (event) => events.push(event) }).send({
      method: 'GET',
      path: '/items',
    });
    const extra = events.map(({ retry, retries, delay, reason, status, method, url }) => ({
      retry,
      retries,
      delay,
      reason,
      status,
      method,
      url,
    }));
    return { settled: [settled], extra };
  },
  'abort-during-wait': async ({ client, clock, script }) => {
    script('/slow', [503, 200]);
    const c = client();
    clock.auto = false;
    const controller = new AbortController();
    const pending = c.send({ method: 'GET', path: '/slow', signal: controller.signal });
    const wait = await clock.nextWait();
    const pendingDuringWait = clock.pendingCount;
    controller.abort();
    return { settled: [await pending], extra: { wait, pendingDuringWait } };
  },
  'already-aborted': async ({ client, script }) => {
    script('/items', [200]);
    return { settled: [await client().send({ method: 'GET', path: '/items', signal: AbortSignal.abort() })] };
  },
  'budget-reserve': async ({ client, script }) => {
    script('/down', [503]);
    const c = client({ budget: { reserve: 2, ratio: 0.1 } });
    const settled: Settled[] = [];
    for (let i = 0; i < 6; i++) settled.push(await c.send({ method: 'GET', path: '/down' }));
    return { settled };
  },
} satisfies Record<string, Case>;

export type CaseName = keyof typeof CASES;

/** Runs one case with one client against the worker, and returns everything it saw. */
export async function runCase(
  worker: ScriptedWorker,
  clientName: ClientName,
  name: CaseName,
): Promise<Observation> {
  const run: Case | undefined = CASES[name];
  if (run === undefined) throw new Error(`No case named ${name}`);
  worker.reset();
  const clock = new VirtualClock();
  const routes: Record<string, ReturnType<ScriptedWorker['script']>> = {};
  const { settled, extra } = await run({
    clock,
    client: (options = {}) =>
      createClient(clientName, API, { random: () => 0.5, timers: clock.timers, now: clock.now, ...options }),
    script: (path, steps) => {
      routes[path] = worker.script(path, steps);
    },
  });
  const hits = Object.fromEntries(Object.entries(routes).map(([path, route]) => [path, route.hits]));
  return {
    client: clientName,
    settled,
    hits,
    waits: [...clock.waits],
    pendingTimers: clock.pendingCount,
    extra,
  };
}
