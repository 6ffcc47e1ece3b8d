import { cycling, StallingPacerStore, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosInstance } from 'axios';
import axios113 from 'axios-1.13.4';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, getBackoffResult, Hedge, Pacer, withBackoff } from 'backoff-core';
import fc from 'fast-check';
import ky from 'ky';
import ky1 from 'ky-1';
import ky1130 from 'ky-1.13.0';
import ky1142 from 'ky-1.14.2';
import ky200 from 'ky-2.0.0';
import { kyBackoff } from 'ky-backoff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultHit, FaultServer, faultPath } from '../src/index.ts';

/**
 * Bounded by construction: whatever the caller's hooks, interceptors and callbacks do (force a retry, throw,
 * return a new request or a response of another status, strip the key, stop, stay pending past the deadline),
 * whatever the server says (`Retry-After: 0` or a past date, again and again, to a client that spreads nothing and
 * has no budget), and however late a shared pacer store answers (its round trips stalled, past the deadline too), a
 * call sends at most `(retries + serverRetries + 1) x (1 + hedge max)` requests, settles by its
 * deadline, and a request that leaves without an Idempotency-Key is never sent twice. Checked on the server's side
 * (a real node:http server on 127.0.0.1), over random behaviour, on every client and every supported ky line.
 */

const RUNS = 25;
const SEED = 20_261_204;

/** What the caller's hooks or callbacks do at one attempt (by its index; the last one repeats). */
type Act = 'none' | 'force' | 'throw' | 'turn-503' | 'turn-200' | 'strip-key' | 'new-request' | 'stop';
const ACTS: readonly Act[] = [
  'none',
  'force',
  'throw',
  'turn-503',
  'turn-200',
  'strip-key',
  'new-request',
  'stop',
];

interface Case {
  readonly method: 'GET' | 'PUT' | 'POST' | 'PATCH';
  /** How the request gets its key: none, the caller's own header, or `idempotencyKey: 'auto'`. */
  readonly key: 'none' | 'caller' | 'auto';
  readonly retries: number;
  /** The cap on server-asked retries; `undefined`: the default. */
  readonly serverRetries: number | undefined;
  /** `retryAfterSpread`: 0 comes back exactly when told. */
  readonly spread: number;
  /** Hedge copies beyond the first per attempt; 0: no hedging. */
  readonly hedges: number;
  /** The call's deadline; one that stays pending needs one (2 s when none is drawn). */
  readonly deadline: number | undefined;
  readonly steps: readonly (number | string)[];
  readonly acts: readonly Act[];
  /** `hang`: pending for ever, past the deadline. */
  readonly shouldRetry: 'none' | 'true' | 'false' | 'throw' | 'async-true' | 'hang';
  readonly onRetry: 'none' | 'throw' | 'async' | 'hang';
  /** `hang-retry`: pending for ever before the first retry; `hang-copy`: before the first hedge's copy. */
  readonly beforeAttempt: 'none' | 'async' | 'hang-retry' | 'hang-copy';
  /**
   * A pacer whose shared store's answers come late, each after the next of these stalls (ms, in turn); with a
   * stated quota its sends are held too. `undefined`: no pacer.
   */
  readonly stalls: readonly number[] | undefined;
  readonly quota: boolean;
}

const cases: fc.Arbitrary<Case> = fc.record({
  method: fc.constantFrom('GET', 'PUT', 'POST', 'PATCH'),
  key: fc.constantFrom('none', 'caller', 'auto'),
  retries: fc.integer({ min: 0, max: 3 }),
  serverRetries: fc.constantFrom(undefined, 0, 2),
  spread: fc.constantFrom(0, 0, 1),
  hedges: fc.constantFrom(0, 0, 1, 2),
  deadline: fc.constantFrom(undefined, undefined, 3000, 30_000),
  steps: fc.array(fc.constantFrom(200, 201, 503, 500, 409, 'reset', 'now', 'now', 'past'), {
    minLength: 1,
    maxLength: 4,
  }),
  acts: fc.array(fc.constantFrom(...ACTS), { minLength: 1, maxLength: 4 }),
  shouldRetry: fc.constantFrom('none', 'none', 'true', 'false', 'throw', 'async-true', 'hang'),
  onRetry: fc.constantFrom('none', 'none', 'throw', 'async', 'hang'),
  beforeAttempt: fc.constantFrom('none', 'none', 'async', 'hang-retry', 'hang-copy'),
  stalls: fc.option(fc.array(fc.constantFrom(0, 5, 400, 2500, 60_000), { minLength: 1, maxLength: 4 }), {
    nil: undefined,
  }),
  quota: fc.boolean(),
});

const PLAIN: Case = {
  method: 'GET',
  key: 'none',
  retries: 3,
  serverRetries: undefined,
  spread: 0,
  hedges: 0,
  deadline: undefined,
  steps: ['now'],
  acts: ['none'],
  shouldRetry: 'none',
  onRetry: 'none',
  beforeAttempt: 'none',
  stalls: undefined,
  quota: false,
};

/**
 * Hand-picked cases, run first: a server that always says "now" to a client without spread or budget (a date in
 * the past too, hedged, keyed POSTs), and callbacks that stay pending past the deadline.
 */
const EXAMPLES: [Case][] = [
  [PLAIN],
  [{ ...PLAIN, steps: ['past'], serverRetries: 2, hedges: 1 }],
  [{ ...PLAIN, method: 'POST', key: 'auto', steps: [503, 'now'], retries: 1 }],
  [{ ...PLAIN, steps: [503, 200], beforeAttempt: 'hang-retry', deadline: 30_000 }],
  [{ ...PLAIN, steps: [200], hedges: 1, beforeAttempt: 'hang-copy' }],
  [{ ...PLAIN, shouldRetry: 'hang' }],
  [{ ...PLAIN, method: 'PATCH', key: 'caller', onRetry: 'hang' }],
  [{ ...PLAIN, steps: [503, 200], stalls: [0, 60_000], deadline: 3000 }],
  [{ ...PLAIN, method: 'POST', steps: ['now'], stalls: [2500, 5], quota: true, deadline: 3000 }],
  [{ ...PLAIN, steps: [503], stalls: [400], quota: true, hedges: 1 }],
];

/** The serverRetries default: what `undefined` stands for. */
const SERVER_RETRIES = 10;

/** A call whose callbacks may stay pending has a deadline: without one nothing ends such a call, by design. */
const deadlineOf = (plan: Case): number | undefined =>
  plan.deadline ??
  (plan.shouldRetry === 'hang' || plan.onRetry === 'hang' || plan.beforeAttempt !== 'none'
    ? 2000
    : undefined);

/** The case's pacer, its store stalling each answer by the next of the case's stalls, on the test's clock. */
function stallingPacer(
  plan: Case,
  clock: VirtualClock,
): { pacer: Pacer<StallingPacerStore>; store: StallingPacerStore } | undefined {
  const { stalls } = plan;
  if (stalls === undefined) return undefined;
  const store = new StallingPacerStore({ timers: clock.timers, stall: cycling(stalls) });
  const pacer = new Pacer({ store, ...(plan.quota ? { quota: { limit: 2, window: 1000 } } : {}) });
  return { pacer, store };
}

/** Pending for ever; the call must not wait for it past its deadline. */
const hang = () => new Promise<never>(() => {});

const act = (plan: Case, attempt: number): Act => plan.acts[Math.min(attempt, plan.acts.length - 1)] as Act;

/** The callbacks a case gives, as options. */
function callbacks(plan: Case): BackoffOptions {
  const options: BackoffOptions = {};
  if (plan.shouldRetry !== 'none') {
    options.shouldRetry = () => {
      if (plan.shouldRetry === 'throw') throw new Error('shouldRetry failed');
      if (plan.shouldRetry === 'async-true') return Promise.resolve(true);
      if (plan.shouldRetry === 'hang') return hang();
      return plan.shouldRetry === 'true';
    };
  }
  if (plan.onRetry !== 'none') {
    options.onRetry = () => {
      if (plan.onRetry === 'throw') throw new Error('onRetry failed');
      return plan.onRetry === 'hang' ? hang() : Promise.resolve();
    };
  }
  if (plan.beforeAttempt !== 'none') {
    options.beforeAttempt = ({ retry, copy }) => {
      if (plan.beforeAttempt === 'hang-retry' && retry > 0) return hang();
      if (plan.beforeAttempt === 'hang-copy' && copy > 1) return hang();
      return Promise.resolve();
    };
  }
  return options;
}

/** Sends one call of `plan` through a client, with the caller's hooks doing what the plan says. */
type Send = (url: string, plan: Case, options: BackoffOptions) => Promise<unknown>;

const BODY = '{"n":1}';
const callerKey = (plan: Case): Record<string, string> =>
  plan.key === 'caller' ? { 'Idempotency-Key': '"caller-1"' } : {};

/** withBackoff: the caller's own callbacks are all a fetch call has. */
const viaFetch: Send = (url, plan, options) =>
  withBackoff(fetch, options)(url, {
    method: plan.method,
    headers: callerKey(plan),
    ...(plan.method === 'GET' ? {} : { body: BODY }),
  });

/**
 * axios: interceptors run once per logical request, above the retries: one registered after axiosBackoff runs
 * before it (axios runs request interceptors last-registered first) and may strip the key or throw; a response
 * interceptor may throw or turn a failure into a success.
 */
function viaAxios(module: typeof axios, adapter: 'http' | 'fetch'): Send {
  return (url, plan, options) => {
    const instance: AxiosInstance = module.create({ adapter });
    axiosBackoff(instance, options);
    instance.interceptors.request.use((config) => {
      const first = act(plan, 0);
      if (first === 'strip-key') config.headers.delete('idempotency-key');
      if (first === 'throw') throw new Error('request interceptor failed');
      return config;
    });
    instance.interceptors.response.use(
      (response) => {
        if (act(plan, 1) === 'throw') throw new Error('response interceptor failed');
        return response;
      },
      (error: unknown) => (act(plan, 1) === 'turn-200' ? { status: 200, data: '' } : Promise.reject(error)),
    );
    return instance.request({
      url,
      method: plan.method,
      headers: callerKey(plan),
      ...(plan.method === 'GET' ? {} : { data: { n: 1 } }),
    });
  };
}

/**
 * ky: the caller's hooks per request, after kyBackoff's: beforeRequest may strip the key or replace the request,
 * afterResponse may force a retry, throw or replace the response, beforeRetry may stop or throw.
 */
function viaKy(copy: typeof ky): Send {
  const marker = typeof (copy as { retry?: unknown }).retry === 'function';
  return (url, plan, options) => {
    const api = kyBackoff(copy, options) as unknown as (
      input: string,
      init: Record<string, unknown>,
    ) => Promise<Response> & { text(): Promise<string> };
    // ky 2 hands hooks one state object; ky 1 its arguments one by one.
    const view = (args: unknown[]) =>
      (args.length === 1
        ? args[0]
        : {
            request: args[0],
            response: args[2],
            retryCount: (args[3] as { retryCount?: number })?.retryCount,
          }) as {
        request: Request;
        response: Response;
        retryCount?: number;
      };
    const beforeRequest = (...args: unknown[]) => {
      const { request, retryCount = 0 } = view(args);
      const what = act(plan, retryCount);
      if (what === 'strip-key') request.headers.delete('idempotency-key');
      if (what === 'new-request') return new Request(request);
      return undefined;
    };
    const afterResponse = (...args: unknown[]) => {
      const { retryCount = 0 } = view(args);
      const what = act(plan, retryCount);
      if (what === 'force' && marker) return (copy as unknown as { retry(): unknown }).retry();
      if (what === 'throw') throw new Error('afterResponse failed');
      if (what === 'turn-503') return new Response('busy', { status: 503 });
      if (what === 'turn-200') return new Response('ok', { status: 200 });
      return undefined;
    };
    const beforeRetry = ({ retryCount }: { retryCount: number }) => {
      const what = act(plan, retryCount);
      if (what === 'stop') return copy.stop;
      if (what === 'throw') throw new Error('beforeRetry failed');
      return undefined;
    };
    return api(url, {
      method: plan.method.toLowerCase(),
      headers: callerKey(plan),
      ...(plan.method === 'GET' ? {} : { body: BODY }),
      timeout: false,
      hooks: { beforeRequest: [beforeRequest], afterResponse: [afterResponse], beforeRetry: [beforeRetry] },
    }).text();
  };
}

const CLIENTS: ReadonlyArray<readonly [string, Send]> = [
  ['withBackoff(fetch)', viaFetch],
  ['axios 1.21 (http adapter)', viaAxios(axios, 'http')],
  ['axios 1.21 (fetch adapter)', viaAxios(axios, 'fetch')],
  ['axios 1.13 (http adapter)', viaAxios(axios113 as unknown as typeof axios, 'http')],
  ['ky 2.1', viaKy(ky)],
  ['ky 2.0', viaKy(ky200 as unknown as typeof ky)],
  ['ky 1.14.3', viaKy(ky1 as unknown as typeof ky)],
  ['ky 1.14.2', viaKy(ky1142 as unknown as typeof ky)],
  ['ky 1.13', viaKy(ky1130 as unknown as typeof ky)],
];

describe('bounded by construction, whatever the hooks do', () => {
  const server = new FaultServer();
  let base = '';
  let id = 0;
  beforeAll(async () => {
    base = await server.listen();
  });
  afterAll(() => server.close());

  const hasKey = (hit: FaultHit) => (hit.idempotencyKey?.trim() ?? '') !== '';

  it.each(CLIENTS)('%s', async (_name, send) => {
    let retried = 0;
    // Calls that the server kept asking past `retries`, and calls a pending callback ended at the deadline.
    let asked = 0;
    let pendingEnded = 0;
    // Calls whose pacer's store was still to answer when the deadline ended them.
    let stallEnded = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (plan) => {
        const path = faultPath(plan.steps, `bounded-${++id}`);
        const clock = new VirtualClock();
        // Timers fire in the order they fall due: a store's answer stalled past the deadline comes after it.
        clock.ordered = true;
        const deadline = deadlineOf(plan);
        const paced = stallingPacer(plan, clock);
        const options: BackoffOptions = {
          retries: plan.retries,
          ...(plan.serverRetries === undefined ? {} : { serverRetries: plan.serverRetries }),
          retryAfterSpread: plan.spread,
          deadline,
          idempotencyKey: plan.key === 'auto' ? 'auto' : false,
          random: () => 0.5,
          timers: clock.timers,
          now: clock.now,
          budget: false,
          ...(plan.hedges > 0 ? { hedge: new Hedge({ delay: 5, max: plan.hedges }) } : {}),
          ...(paced === undefined ? {} : { pacer: paced.pacer }),
          ...callbacks(plan),
        };
        const started = clock.now();
        const outcome = await send(`${base}${path}`, plan, options).catch((error: unknown) => error);
        // Every call settles, and by its deadline (virtual time: the waits, holds and pending callbacks it ran).
        const elapsed = clock.now() - started;
        if (deadline !== undefined) expect(elapsed).toBeLessThanOrEqual(deadline);
        // A store's answer still to come: the call ended without waiting for it.
        const stalled = (paced?.store.pending ?? 0) > 0;
        // Hedged copies the winner made losers may still be on their way: a copy that left is in the loopback's
        // buffer already, and the server reads it in the event loop's next turns, however busy the machine.
        for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
        const hits = server.hitsOf(path);
        const serverRetries = plan.serverRetries ?? SERVER_RETRIES;
        expect(hits.length).toBeLessThanOrEqual((plan.retries + serverRetries + 1) * (1 + plan.hedges));
        if ((plan.method === 'POST' || plan.method === 'PATCH') && hits.some((hit) => !hasKey(hit))) {
          expect(hits).toHaveLength(1);
        }
        if (hits.length > 1) retried++;
        const reason = getBackoffResult(outcome)?.reason;
        if (hits.length > plan.retries + 1 && plan.hedges === 0) asked++;
        if (reason === 'deadline' && deadline !== undefined && elapsed === deadline) {
          pendingEnded++;
          if (stalled) stallEnded++;
        }
      }),
      { numRuns: RUNS, seed: SEED, examples: EXAMPLES },
    );
    // The property met calls that were sent more than once, not only calls that stopped at once; calls the server
    // kept asking; calls that a pending callback held until the deadline; and calls a stalled store's answer did not
    // keep past it.
    expect(retried).toBeGreaterThan(0);
    expect(asked).toBeGreaterThan(0);
    expect(pendingEnded).toBeGreaterThan(0);
    expect(stallEnded).toBeGreaterThan(0);
  });
});
