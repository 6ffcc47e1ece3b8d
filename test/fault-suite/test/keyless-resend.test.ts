import { Agent } from 'node:http';
import { cycling, StallingPacerStore, VirtualClock } from '@backoff/test-utils';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { axiosOutbox } from 'axios-backoff/outbox';
import { type BackoffOptions, getBackoffResult, Pacer, withBackoff } from 'backoff-core';
import { MemoryOutboxStore, type Outbox, withOutbox } from 'backoff-core/outbox';
import fc from 'fast-check';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import { kyOutbox } from 'ky-backoff/outbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultHit, FaultServer, faultPath } from '../src/index.ts';

/**
 * A non-idempotent request is re-sent only if the Idempotency-Key is on the request that is
 * actually sent. For every client, a POST whose key header is absent, `undefined`, `false`, `null`, empty,
 * blank, an array, a key that cannot travel, or a good key, under any casing of the header name and any
 * `idempotencyKey` setting, meets a server that fails twice (or keeps saying "now": `Retry-After: 0` or a past date,
 * to a client that spreads nothing, with callbacks that may stay pending past the deadline, and a pacer whose shared
 * store answers late, past the deadline too): on the server's side,
 * no POST ever arrives twice unless every arrival carries one and the same non-empty key, and every call settles by
 * its deadline. With an outbox drawn too, what the call queued is replayed once after it: the replay counts as one
 * more arrival, under the same rule. Counted on a real node:http server on 127.0.0.1.
 */

const RUNS = 60;
const SEED = 20_261_202;

type Value = string | readonly string[] | false | null | undefined;
/** One header entry the caller passes: a name in some casing, and a raw value as the client takes it. */
type Entry = readonly [name: string, value: Value];

const GOOD_KEY = '"k-1"';
const values: fc.Arbitrary<Value> = fc.constantFrom<Value>(
  undefined,
  false,
  null,
  '',
  '   ',
  [],
  [GOOD_KEY],
  [GOOD_KEY, '"k-2"'],
  GOOD_KEY,
  'order-1',
  'café-1',
  'заказ-α',
);
const entry: fc.Arbitrary<Entry> = fc.tuple(fc.mixedCase(fc.constant('idempotency-key')), values);
const settings = fc.constantFrom<BackoffOptions['idempotencyKey']>(false, 'auto', () => 'generated-1');
const scripts = fc.constantFrom(
  ['503', '503', '200'],
  ['reset', '503', '200'],
  ['now'],
  ['past', 'now', '200'],
  ['reset', 'now'],
);

/** A callback of the caller's that never settles: the deadline must end the call. */
type Pending = 'none' | 'shouldRetry' | 'onRetry' | 'beforeAttempt';
const DEADLINE = 5000;

interface Case {
  readonly entries: readonly Entry[];
  readonly idempotencyKey: BackoffOptions['idempotencyKey'];
  readonly steps: readonly string[];
  /** `retryAfterSpread`: 0 comes back exactly when told. */
  readonly spread: number;
  readonly pending: Pending;
  /** A pacer whose shared store answers each ask after the next of these stalls (ms); `undefined`: no pacer. */
  readonly stalls?: readonly number[] | undefined;
  /** The client has an outbox: a write it could not complete is queued, and replayed after the call. */
  readonly outbox: boolean;
}
const cases: fc.Arbitrary<Case> = fc.record({
  entries: fc.array(entry, { maxLength: 2 }),
  idempotencyKey: settings,
  steps: scripts,
  spread: fc.constantFrom(0, 1),
  pending: fc.constantFrom<Pending>('none', 'none', 'shouldRetry', 'onRetry', 'beforeAttempt'),
  stalls: fc.option(fc.array(fc.constantFrom(0, 5, 400, 60_000), { minLength: 1, maxLength: 3 }), {
    nil: undefined,
  }),
  outbox: fc.boolean(),
});

const hang = () => new Promise<never>(() => {});

/** The case's callback that stays pending (on a retry: the first attempt goes). */
function pendingOf(pending: Pending): BackoffOptions {
  if (pending === 'shouldRetry') return { shouldRetry: hang };
  if (pending === 'onRetry') return { onRetry: hang };
  if (pending === 'beforeAttempt') return { beforeAttempt: ({ retry }) => (retry > 0 ? hang() : undefined) };
  return {};
}

/** Hand-picked cases (a false, null, empty-list or empty key), always run first. */
const plain = { spread: 1, pending: 'none', outbox: false } as const;
const EXAMPLES: [Case][] = [
  [{ entries: [['Idempotency-Key', false]], idempotencyKey: 'auto', steps: ['503', '503', '200'], ...plain }],
  [{ entries: [['idempotency-key', null]], idempotencyKey: 'auto', steps: ['503', '503', '200'], ...plain }],
  [{ entries: [['IDEMPOTENCY-KEY', []]], idempotencyKey: 'auto', steps: ['reset', '503', '200'], ...plain }],
  [{ entries: [['Idempotency-Key', '']], idempotencyKey: false, steps: ['503', '503', '200'], ...plain }],
  [
    {
      entries: [['Idempotency-Key', GOOD_KEY]],
      idempotencyKey: false,
      steps: ['now'],
      spread: 0,
      pending: 'none',
      outbox: true,
    },
  ],
  [{ entries: [], idempotencyKey: false, steps: ['reset', 'now'], spread: 0, pending: 'none', outbox: true }],
  [
    {
      entries: [],
      idempotencyKey: 'auto',
      steps: ['past', 'now', '200'],
      spread: 0,
      pending: 'beforeAttempt',
      outbox: true,
    },
  ],
  [
    {
      entries: [],
      idempotencyKey: false,
      steps: ['503', '503', '200'],
      spread: 0,
      pending: 'none',
      stalls: [0, 60_000],
      outbox: false,
    },
  ],
];

/** The case's pacer, its store answering each ask after the next of the case's stalls on the test's clock. */
function stallingPacer(stalls: readonly number[] | undefined, clock: VirtualClock) {
  if (stalls === undefined) return undefined;
  return new StallingPacerStore({ timers: clock.timers, stall: cycling(stalls) });
}

/**
 * How a client sends a POST with the caller's raw header entries; resolves or rejects as the client does. With an
 * outbox (`store`), `made.outbox` is the client's, to replay what the call queued.
 */
type Send = (
  url: string,
  entries: readonly Entry[],
  options: BackoffOptions,
  store?: MemoryOutboxStore,
  made?: { outbox?: Outbox },
) => Promise<unknown>;

/** The outbox options of a case: replayed only when the test says, never offline. */
const outboxOf = (store: MemoryOutboxStore) => ({ store, replayOnStart: false, network: false }) as const;

const record = (entries: readonly Entry[]) => Object.fromEntries(entries) as never;
/** fetch and ky take header values as strings: what a caller writing `{ 'Idempotency-Key': x }` gets. */
const tuples = (entries: readonly Entry[]) => entries.map(([name, value]) => [name, String(value)]) as never;

const agent = new Agent({ keepAlive: true });
const CLIENTS: ReadonlyArray<readonly [string, Send]> = [
  [
    'withBackoff(fetch), headers as a record',
    (url, entries, options, store, made) => {
      const policy = withBackoff(fetch, options);
      const send = store === undefined ? policy : withOutbox(policy, outboxOf(store));
      if (made !== undefined && 'outbox' in send) made.outbox = send.outbox;
      return send(url, { method: 'POST', headers: record(entries), body: '{"n":1}' });
    },
  ],
  [
    'withBackoff(fetch), headers as tuples',
    (url, entries, options, store, made) => {
      const policy = withBackoff(fetch, options);
      const send = store === undefined ? policy : withOutbox(policy, outboxOf(store));
      if (made !== undefined && 'outbox' in send) made.outbox = send.outbox;
      return send(url, { method: 'POST', headers: tuples(entries), body: '{"n":1}' });
    },
  ],
  ...(['http', 'fetch'] as const).map(
    (adapter) =>
      [
        `axios (${adapter} adapter)`,
        (
          url: string,
          entries: readonly Entry[],
          options: BackoffOptions,
          store?: MemoryOutboxStore,
          made?: { outbox?: Outbox },
        ) => {
          const instance = axios.create({ adapter, httpAgent: agent });
          axiosBackoff(instance, options);
          if (store !== undefined && made !== undefined) made.outbox = axiosOutbox(instance, outboxOf(store));
          return instance.post(url, { n: 1 }, { headers: record(entries) });
        },
      ] as const,
  ),
  [
    'ky 2',
    (url, entries, options, store, made) => {
      const api = kyBackoff(ky, options);
      if (store === undefined) return api.post(url, { headers: record(entries), json: { n: 1 } }).text();
      const withOne = kyOutbox(api, outboxOf(store));
      if (made !== undefined) made.outbox = withOne.outbox;
      return withOne.post(url, { headers: record(entries), json: { n: 1 } }).text();
    },
  ],
  [
    'ky 1',
    (url, entries, options, store, made) => {
      const api = kyBackoff(ky1, options);
      if (store === undefined) return api.post(url, { headers: tuples(entries), json: { n: 1 } }).text();
      const withOne = kyOutbox(api, outboxOf(store));
      if (made !== undefined) made.outbox = withOne.outbox;
      return withOne.post(url, { headers: tuples(entries), json: { n: 1 } }).text();
    },
  ],
];

describe('no POST is re-sent without its Idempotency-Key, on the server side', () => {
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
    let retried = 0;
    let drawnReplays = 0;
    // Calls without a callback that stays pending: those may retry.
    let calm = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ entries, idempotencyKey, steps, spread, pending, stalls, outbox }) => {
        const path = faultPath(steps, `key-${++id}`);
        if (pending === 'none') calm++;
        const clock = new VirtualClock();
        // Timers fire in the order they fall due: a store's answer stalled past the deadline comes after it.
        clock.ordered = true;
        const store = stallingPacer(stalls, clock);
        // A store may stall past any wait: the deadline ends such a call.
        const bounded = pending !== 'none' || store !== undefined;
        const started = clock.now();
        let outcome: unknown;
        const outboxStore = outbox ? new MemoryOutboxStore() : undefined;
        const made: { outbox?: Outbox } = {};
        try {
          outcome = await send(
            `${base}${path}`,
            entries,
            {
              idempotencyKey,
              random: () => 0.5,
              timers: clock.timers,
              now: clock.now,
              budget: false,
              retryAfterSpread: spread,
              ...(store === undefined ? {} : { pacer: new Pacer({ store }) }),
              ...(bounded ? { deadline: DEADLINE, ...pendingOf(pending) } : {}),
            },
            outboxStore,
            made,
          );
        } catch (error) {
          outcome = error;
        }
        // Every call settles (a pending callback ends at the deadline), and none waits past it.
        if (bounded) expect(clock.now() - started).toBeLessThanOrEqual(DEADLINE);
        const sent = server.hitsOf(path).length;
        if (outboxStore !== undefined) {
          // What the call queued carries a non-empty key, and is replayed with it.
          for (const queued of outboxStore.list()) expect(queued.key.trim()).not.toBe('');
          const queued = outboxStore.list().length;
          await made.outbox?.retry();
          made.outbox?.close();
          if (queued > 0) expect(server.hitsOf(path).length).toBeGreaterThan(sent);
          if (queued > 0) drawnReplays++;
        }
        const hits = server.hitsOf(path);
        expect(hits.every((hit) => hit.method === 'POST')).toBe(true);
        if (hits.length > 1) {
          // The invariant: re-sent only with a key, the same one every time.
          const keys = hits.map(keyOf);
          expect(keys).not.toContain(undefined);
          expect(new Set(keys).size).toBe(1);
          retried++;
        }
        // And retries do happen when the sent request has a key: every attempt was made, or the call says why not.
        const result = getBackoffResult(outcome);
        if (sent === 1 && keyOf(hits[0] as FaultHit) !== undefined) {
          expect(result?.reason).not.toBe('method-not-idempotent');
        }
        if (sent === 0 && outboxStore === undefined) {
          // Nothing sent: only a key that cannot travel does that, with a TypeError (ours or the client's), or a
          // store still to answer at the deadline, with its TimeoutError (axios's error keeps it as its cause).
          const cause = (outcome as { cause?: unknown } | null)?.cause;
          if (!(outcome instanceof TypeError)) {
            expect(store?.pending).toBeGreaterThan(0);
            expect([outcome, cause]).toContainEqual(expect.objectContaining({ name: 'TimeoutError' }));
          }
        }
        // A store's answer the call did not wait for comes later: then no timer is left.
        for (let turn = 0; turn < 100 && (store?.pending ?? 0) > 0; turn++) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        clock.auto = false;
        expect(clock.pendingCount).toBe(0);
      }),
      { numRuns: RUNS, seed: SEED, examples: EXAMPLES },
    );
    // The property ran on cases that do retry, not only on ones that stop at the first attempt.
    expect(retried).toBeGreaterThan(calm / 4);
    // And on cases where the outbox queued a write and replayed it.
    expect(drawnReplays).toBeGreaterThan(0);
  });
});
