import { VirtualClock } from '@backoff/test-utils/virtual-clock';
import { type BackoffOptions, Hedge, Pacer, type RetryEvent } from 'backoff-core';
import { createClient, type PageClient } from './clients.js';
import { API, type Route, type ScriptedWorker, type Step } from './scripted-worker.js';
import type { ClientName, Observation, Settled } from './types.js';

/** What a case gets: clients on one virtual clock (random fixed at 0.5), and the worker's scripts. */
export interface CaseContext {
  readonly clock: VirtualClock;
  /** A client with backoff on the case's clock; `options` are laid over `{ random: 0.5, timers, now }`. */
  client(options?: BackoffOptions): PageClient;
  /** Scripts `path` and returns the worker's record of it. */
  script(path: string, steps: readonly Step[]): Route;
  /** The signal of every attempt (every hedged copy too) the case's clients handed to the browser, in order. */
  readonly sent: ReadonlyArray<AbortSignal | undefined>;
  /** Answers every request a `'no-answer'` step still holds (with a 200). */
  release(): void;
}

type Case = (context: CaseContext) => Promise<{ settled: Settled[]; extra?: unknown }>;

/** One turn of the page's event loop (its real timers: the clients' I/O runs meanwhile). */
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Lets the page's I/O run until `done` or `ms` of real time have passed; says whether `done`. Bounded, so that a
 * broken feature ends its case with a record to assert on rather than a hang.
 */
async function until(done: () => boolean, ms = 3000): Promise<boolean> {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await turn();
  return done();
}

/** Settles `calls`, moving the virtual clock by 100 ms whenever the page's I/O has gone quiet. */
async function drive<T>(clock: VirtualClock, calls: Promise<T>[]): Promise<T[]> {
  let left = calls.length;
  for (const call of calls) call.finally(() => left--).catch(() => {});
  for (let i = 0; i < 600 && left > 0; i++) {
    for (let j = 0; j < 10 && left > 0; j++) await turn();
    if (left > 0) clock.advance(100);
  }
  return Promise.all(calls);
}

/** A draft-8 answer of a 1-per-second quota that is spent for one more second. */
const QUOTA_SPENT = {
  status: 200,
  headers: { RateLimit: '"default";r=0;t=1', 'RateLimit-Policy': '"default";q=1;w=1' },
} as const;

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
  'pacer-holds-until-reset': async ({ client, clock, script }) => {
    const route = script('/quota', [QUOTA_SPENT, 200]);
    const holds: Pacer.HoldEvent[] = [];
    const c = client({ pacer: new Pacer(), onHold: (event) => holds.push(event) });
    clock.auto = false;
    const GET = (id: string) => ({ method: 'GET', path: '/quota', headers: { 'x-id': id } });
    // A's answer says the quota is spent for 1 s; B and C go out after it, through the same pacer.
    const first = await c.send(GET('A'));
    const rest = [c.send(GET('B')), c.send(GET('C'))];
    await until(() => clock.pendingCount === 2);
    const hitsWhileHeld = route.hits.length;
    const [toB = 0, toC = toB] = holds.map((hold) => hold.delay);
    // 1 ms before B's hold ends, with the page's I/O given real time to run: still nothing sent.
    clock.advance(Math.max(0, toB - 1));
    await until(() => route.hits.length > 1, 200);
    const hitsJustBefore = route.hits.length;
    clock.advance(toB > 0 ? 1 : 0);
    await until(() => route.hits.length > 1);
    clock.advance(toC - toB);
    await until(() => route.hits.length > 2);
    const settled = [first, ...(await drive(clock, rest))];
    const events = holds.map(({ delay, reason, key, method, url, attempt }) => ({
      delay,
      reason,
      key,
      method,
      url,
      attempt,
    }));
    return { settled, extra: { holds: events, hitsWhileHeld, hitsJustBefore } };
  },
  'hedge-slow-first-copy': async ({ client, clock, script, sent, release }) => {
    // The worker never answers the first request (until it is aborted); it answers the second at once.
    const route = script('/slow', ['no-answer', 200]);
    clock.auto = false;
    let done = false;
    const pending = client({ hedge: new Hedge({ delay: 50 }) })
      .send({ method: 'GET', path: '/slow' })
      .finally(() => {
        done = true;
      });
    await until(() => route.hits.length === 1);
    const timersBeforeHedge = clock.pendingCount;
    clock.advance(50);
    // Without a hedge nothing would ever answer: end the held request so the case still returns.
    if (!(await until(() => done))) release();
    const settled = await pending;
    return {
      settled: [settled],
      extra: { timersBeforeHedge, sentAborted: sent.map((signal) => signal?.aborted ?? null) },
    };
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
  const start = clock.now();
  worker.now = () => clock.now() - start;
  const routes: Record<string, Route> = {};
  const sent: Array<AbortSignal | undefined> = [];
  const { settled, extra } = await run({
    clock,
    client: (options = {}) =>
      createClient(
        clientName,
        API,
        { random: () => 0.5, timers: clock.timers, now: clock.now, ...options },
        (signal) => sent.push(signal),
      ),
    script: (path, steps) => {
      const route = worker.script(path, steps);
      routes[path] = route;
      return route;
    },
    sent,
    release: () => worker.release(),
  });
  // Ends any request still held by a 'no-answer' step: none outlives its case.
  worker.release();
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
