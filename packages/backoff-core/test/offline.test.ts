import { FakeNetwork, VirtualClock } from '@backoff/test-utils';
import {
  type BackoffOptions,
  createBackoff,
  getBackoffResult,
  type RetryEvent,
  withBackoff,
} from 'backoff-core';
import { type Outcome, runCall } from 'backoff-core/adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserNetworkStatus } from '../src/run/offline.ts';
import { ScriptedClient } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);

const failedFetch = (): Outcome => ({
  type: 'error',
  kind: 'network',
  error: new TypeError('Failed to fetch'),
});

/** Lets promise callbacks run (the runner's continuations), without moving virtual time. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const OK: Outcome = { type: 'response', status: 200 };

function setup(options: BackoffOptions = {}) {
  const clock = new VirtualClock(NOW);
  clock.auto = false;
  const network = new FakeNetwork();
  const events: RetryEvent[] = [];
  const policy = createBackoff({
    random: () => 0.5,
    timers: clock.timers,
    now: clock.now,
    budget: false,
    network,
    onRetry: (event) => events.push(event),
    ...options,
  });
  return { clock, network, events, policy };
}

/**
 * Runs a call whose first attempt fails with `outcome` and whose retry succeeds, until its retry's wait began;
 * `status` tells whether the wait has ended (the call then ends at once).
 */
async function failOnce(policy: ReturnType<typeof setup>['policy'], outcome: Outcome, signal?: AbortSignal) {
  const request = { method: 'POST', url: 'https://api.test/orders', headers: { 'Idempotency-Key': 'k' } };
  const state = new ScriptedClient([outcome, OK], signal, request.headers);
  const status = { done: false as boolean, error: undefined as unknown };
  const waiting = runCall(policy, request, state).then(
    () => {
      status.done = true;
    },
    (error: unknown) => {
      status.done = true;
      status.error = error;
    },
  );
  await settle();
  if (state.sent !== 1 || status.done) throw new Error('expected a retry');
  return { state, status, waiting };
}

describe('offline: a network error while offline waits for the network', () => {
  it('waits past the computed delay until the online event, and says so in onRetry', async () => {
    const { clock, network, events, policy } = setup();
    network.online = false;
    const { state, status, waiting } = await failOnce(policy, failedFetch());
    expect(events.map((event) => [event.delay, event.waitingForNetwork])).toEqual([[500, true]]);

    clock.advance(500);
    await settle();
    // The delay is over, the device is still offline: no attempt may start.
    expect(status.done).toBe(false);
    expect(network.listeners).toBe(1);

    clock.advance(120_000);
    await settle();
    expect(status.done).toBe(false);

    network.goOnline();
    await waiting;
    expect(status).toEqual({ done: true, error: undefined });
    // Offline time is waited time, uncapped by maxDelay (30 s); one retry spent, not more: the retry is attempt 2.
    expect(state.result).toMatchObject({ attempts: 2, totalDelay: 120_500 });
    expect(state.sent).toBe(2);
    expect(network.listeners).toBe(0);
    expect(clock.pendingCount).toBe(0);
  });

  it('online again before the delay is over: the wait still lasts the whole delay', async () => {
    const { clock, network, policy } = setup();
    network.online = false;
    const { status, waiting } = await failOnce(policy, failedFetch());
    clock.advance(200);
    network.goOnline();
    await settle();
    expect(status.done).toBe(false);
    clock.advance(300);
    await waiting;
    expect(status).toEqual({ done: true, error: undefined });
    expect(network.listeners).toBe(0);
  });

  it('an online event while still offline (a flapping link) does not end the wait', async () => {
    const { clock, network, policy } = setup();
    network.online = false;
    const { status, waiting } = await failOnce(policy, failedFetch());
    clock.advance(500);
    await settle();
    // Fire the listeners without coming online.
    network.goOnline();
    network.online = false;
    await settle();
    network.online = true;
    await waiting;
    expect(status.done).toBe(true);
  });

  it('the deadline ends the wait at once, with the attempt’s own error and reason deadline', async () => {
    const { clock, network, policy } = setup({ deadline: 10_000 });
    network.online = false;
    const outcome = failedFetch();
    const { state, status, waiting } = await failOnce(policy, outcome);
    clock.advance(500);
    await settle();
    expect(status.done).toBe(false);
    clock.advance(9499);
    await settle();
    expect(status.done).toBe(false);
    clock.advance(1);
    await waiting;
    expect(status).toEqual({ done: true, error: (outcome as { error: unknown }).error });
    expect(state.result).toMatchObject({ attempts: 1, reason: 'deadline', totalDelay: 10_000 });
    expect(network.listeners).toBe(0);
    expect(clock.pendingCount).toBe(0);
  });

  it("the caller's abort ends the wait at once, with the abort reason", async () => {
    const { clock, network, policy } = setup();
    network.online = false;
    const controller = new AbortController();
    const { state, status, waiting } = await failOnce(policy, failedFetch(), controller.signal);
    clock.advance(500);
    await settle();
    const reason = new Error('gave up');
    controller.abort(reason);
    await waiting;
    expect(status).toEqual({ done: true, error: reason });
    // The call stopped because of the abort, not the network error it was waiting to retry.
    expect(state.result).toMatchObject({ attempts: 1, reason: 'aborted' });
    expect(network.listeners).toBe(0);
    expect(clock.pendingCount).toBe(0);
  });

  it.each<[string, Outcome, boolean]>([
    ['a 503 while offline (the server answered)', { type: 'response', status: 503 }, false],
    ['a timeout while offline', { type: 'error', kind: 'timeout', error: new Error('t') }, false],
    ['a refused connection while offline', { type: 'error', kind: 'not-sent', error: new Error('r') }, true],
  ])('%s: waitingForNetwork %s', async (_label, outcome, waits) => {
    const { clock, network, events, policy } = setup();
    network.online = false;
    const { status } = await failOnce(policy, outcome);
    expect(events[0]?.waitingForNetwork).toBe(waits);
    clock.advance(500);
    await settle();
    expect(status.done).toBe(!waits);
    network.goOnline();
  });

  it('a network error while online waits only the delay', async () => {
    const { clock, events, policy } = setup();
    const { waiting } = await failOnce(policy, failedFetch());
    expect(events[0]?.waitingForNetwork).toBe(false);
    clock.advance(500);
    await waiting;
  });

  it('network: false never waits for the network, even per request', async () => {
    const { clock, network, events, policy } = setup();
    network.online = false;
    const { waiting } = await failOnce(policy.extend({ network: false }), failedFetch());
    expect(events[0]?.waitingForNetwork).toBe(false);
    clock.advance(500);
    await waiting;
    expect(network.listeners).toBe(0);
    // An override that leaves `network` out keeps the base's choice.
    expect(createBackoff({ network: false }).extend({ retries: 1 }).options.network).toBeUndefined();
  });
});

describe('withBackoff: nothing is sent while offline', () => {
  it('a fetch that failed offline is sent again only once the device is online', async () => {
    const clock = new VirtualClock(NOW);
    clock.auto = false;
    const network = new FakeNetwork();
    network.online = false;
    let sent = 0;
    const fetchFn = async () => {
      sent++;
      if (!network.online) throw new TypeError('Failed to fetch');
      return new Response('ok');
    };
    const events: RetryEvent[] = [];
    const fetchWithBackoff = withBackoff(fetchFn, {
      random: () => 0.5,
      timers: clock.timers,
      now: clock.now,
      network,
      onRetry: (event) => events.push(event),
    });
    const pending = fetchWithBackoff('https://api.test/items');
    expect(await clock.nextWait()).toBe(500);
    clock.advance(500);
    await settle();
    clock.advance(59_500);
    await settle();
    expect(sent).toBe(1);
    network.goOnline();
    const response = await pending;
    expect(await response.text()).toBe('ok');
    expect(sent).toBe(2);
    expect(events.map((event) => event.waitingForNetwork)).toEqual([true]);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, totalDelay: 60_000 });
    expect(network.listeners).toBe(0);
  });
});

describe('browserNetworkStatus', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('is undefined in Node, which has a navigator but no onLine', () => {
    expect(browserNetworkStatus()).toBeUndefined();
    expect(createBackoff().options.network).toBeUndefined();
  });

  it("reads navigator.onLine and the global scope's online event, and removes its listener", () => {
    const scope = new EventTarget();
    const navigator = { onLine: false };
    vi.stubGlobal('navigator', navigator);
    vi.stubGlobal('addEventListener', scope.addEventListener.bind(scope));
    vi.stubGlobal('removeEventListener', scope.removeEventListener.bind(scope));
    const status = browserNetworkStatus();
    expect(status?.isOnline()).toBe(false);
    const heard: number[] = [];
    const remove = status?.onOnline(() => heard.push(1));
    navigator.onLine = true;
    expect(status?.isOnline()).toBe(true);
    scope.dispatchEvent(new Event('online'));
    remove?.();
    scope.dispatchEvent(new Event('online'));
    expect(heard).toEqual([1]);
    expect(createBackoff().options.network).toBeDefined();
  });
});
