import { Agent } from 'node:http';
import { cycling, StallingPacerStore, VirtualClock } from '@backoff/test-utils';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type AttemptContext, type BackoffOptions, getBackoffResult, Pacer, withBackoff } from 'backoff-core';
import fc from 'fast-check';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultHit, FaultServer, faultPath } from '../src/index.ts';

/**
 * Whatever `beforeAttempt` does to each attempt (set, delete or change the Idempotency-Key, set other headers, throw,
 * take its time, stay pending past the deadline, nothing), over any answers of the server (`Retry-After: 0` and past
 * dates to a client that spreads nothing among them), with a pacer whose shared store answers late (past the
 * deadline too): on the server's side a POST that arrived without a key is never
 * followed by another arrival of it, a POST is re-sent only with the key of what came before, no call sends more
 * than `retries + serverRetries + 1` requests, and every call settles by its deadline. Counted on a real node:http
 * server on 127.0.0.1, for every client.
 */

const RUNS = 50;
const SEED = 20_261_204;
const RETRIES = 3;
const SERVER_RETRIES = 3;
const DEADLINE = 20_000;
const KEY = '"k-1"';

type Action = 'nothing' | 'other' | 'delete-key' | 'change-key' | 'same-key' | 'throw' | 'await' | 'hang';
const actions = fc.constantFrom<Action>(
  'nothing',
  'other',
  'delete-key',
  'change-key',
  'same-key',
  'throw',
  'await',
  'hang',
);
const answers = fc.constantFrom<string>('503', '500', '429', 'reset', '200', '201', 'now', 'past');

interface Case {
  /** The hook's action before attempt 1, 2, ... (the last repeats). */
  readonly hook: readonly Action[];
  /** Whether the caller sends the POST with a key of its own. */
  readonly keyed: boolean;
  readonly steps: readonly string[];
  /** A pacer whose shared store answers each ask after the next of these stalls (ms); `undefined`: no pacer. */
  readonly stalls?: readonly number[] | undefined;
}
const cases: fc.Arbitrary<Case> = fc.record({
  hook: fc.array(actions, { minLength: 1, maxLength: RETRIES + 1 }),
  keyed: fc.boolean(),
  steps: fc.array(answers, { minLength: 1, maxLength: RETRIES + 1 }),
  // One case in three: a stall past the deadline stops a call before it is re-sent.
  stalls: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: fc.array(fc.constantFrom(0, 5, 2500, 60_000), { minLength: 1, maxLength: 3 }), weight: 1 },
  ),
});

/** Hand-picked cases, run first: the key dropped on the retry, changed on the retry, set by the hook alone. */
const EXAMPLES: [Case][] = [
  [{ hook: ['nothing', 'delete-key'], keyed: true, steps: ['503', '200'] }],
  [{ hook: ['nothing', 'change-key'], keyed: true, steps: ['reset', '200'] }],
  [{ hook: ['same-key'], keyed: false, steps: ['503', '503', '200'] }],
  [{ hook: ['delete-key', 'same-key'], keyed: true, steps: ['500', '200'] }],
  [{ hook: ['same-key'], keyed: true, steps: ['now'] }],
  [{ hook: ['nothing', 'hang'], keyed: true, steps: ['past', '200'] }],
  [{ hook: ['nothing', 'delete-key'], keyed: true, steps: ['503', '200'], stalls: [0, 60_000] }],
];

/** The hook that plays a case's actions, one per attempt. */
function hookOf(actions: readonly Action[]) {
  return async ({ headers, attempt }: AttemptContext) => {
    const action = actions[Math.min(attempt, actions.length) - 1] as Action;
    headers.set('x-attempt', String(attempt));
    if (action === 'other') headers.set('x-signature', `s-${attempt}`);
    else if (action === 'delete-key') headers.delete('Idempotency-Key');
    else if (action === 'change-key') headers.set('Idempotency-Key', `"k-${attempt + 1}"`);
    else if (action === 'same-key') headers.set('Idempotency-Key', KEY);
    else if (action === 'throw') throw new Error(`hook refused attempt ${attempt}`);
    else if (action === 'await') await new Promise((resolve) => setImmediate(resolve));
    // The token service hangs: the deadline ends the call.
    else if (action === 'hang') await new Promise<never>(() => {});
  };
}

/** How a client sends a POST; resolves or rejects as the client does. */
type Send = (url: string, headers: Record<string, string>, options: BackoffOptions) => Promise<unknown>;

const agent = new Agent({ keepAlive: true });
const CLIENTS: ReadonlyArray<readonly [string, Send]> = [
  [
    'withBackoff(fetch)',
    (url, headers, options) => withBackoff(fetch, options)(url, { method: 'POST', headers, body: '{"n":1}' }),
  ],
  ...(['http', 'fetch'] as const).map(
    (adapter) =>
      [
        `axios (${adapter} adapter)`,
        (url: string, headers: Record<string, string>, options: BackoffOptions) => {
          const instance = axios.create({ adapter, httpAgent: agent });
          axiosBackoff(instance, options);
          return instance.post(url, { n: 1 }, { headers });
        },
      ] as const,
  ),
  [
    'ky 2',
    (url, headers, options) =>
      kyBackoff(ky, options)
        .post(url, { headers, json: { n: 1 } })
        .text(),
  ],
  [
    'ky 1',
    (url, headers, options) =>
      kyBackoff(ky1, options)
        .post(url, { headers, json: { n: 1 } })
        .text(),
  ],
];

describe('beforeAttempt cannot make a POST go twice without its key, on the server side', () => {
  const server = new FaultServer();
  let base = '';
  let id = 0;

  beforeAll(async () => {
    base = await server.listen();
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  const keyOf = (hit: FaultHit) => hit.idempotencyKey?.trim() || undefined;

  it.each(CLIENTS)('%s', async (_name, send) => {
    let resent = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ hook, keyed, steps, stalls }) => {
        const path = faultPath(steps, `hook-${++id}`);
        const clock = new VirtualClock();
        // Timers fire in the order they fall due: a store's answer stalled past the deadline comes after it.
        clock.ordered = true;
        const store =
          stalls === undefined
            ? undefined
            : new StallingPacerStore({
                timers: clock.timers,
                stall: cycling(stalls),
              });
        const started = clock.now();
        let outcome: unknown;
        try {
          outcome = await send(`${base}${path}`, keyed ? { 'Idempotency-Key': KEY } : {}, {
            retries: RETRIES,
            serverRetries: SERVER_RETRIES,
            retryAfterSpread: 0,
            deadline: DEADLINE,
            beforeAttempt: hookOf(hook),
            random: () => 0.5,
            timers: clock.timers,
            now: clock.now,
            budget: false,
            ...(store === undefined ? {} : { pacer: new Pacer({ store }) }),
          });
        } catch (error) {
          outcome = error;
        }
        expect(clock.now() - started).toBeLessThanOrEqual(DEADLINE);
        const hits = server.hitsOf(path);
        // Sends are bounded: no hedging, so one request per attempt at most.
        expect(hits.length).toBeLessThanOrEqual(RETRIES + SERVER_RETRIES + 1);
        const keys = hits.map(keyOf);
        // A keyless POST is never received twice: nothing follows an arrival without a key...
        expect(keys.slice(0, -1)).not.toContain(undefined);
        // ...and what follows carries the key of what came before.
        expect(new Set(keys).size).toBeLessThanOrEqual(1);
        if (hits.length > 1) resent++;
        // The result counts what the server saw (an attempt cut by a reset still reached it).
        const result = getBackoffResult(outcome);
        if (result !== undefined) expect(result.attempts).toBe(hits.length);
        // A store's answer the call did not wait for comes later: then no timer is left.
        for (let turn = 0; turn < 100 && (store?.pending ?? 0) > 0; turn++) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        clock.auto = false;
        expect(clock.pendingCount).toBe(0);
      }),
      { numRuns: RUNS, seed: SEED, examples: EXAMPLES },
    );
    // The property ran on calls that were re-sent, not only on ones that stopped at the first attempt.
    expect(resent).toBeGreaterThan(RUNS / 10);
  });
});
