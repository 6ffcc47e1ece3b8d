import {
  BackoffMetrics,
  type BackoffMetricsSnapshot,
  CircuitBreaker,
  type CircuitStateChange,
  createBackoff,
} from 'backoff-core';
import { type Client, type Outcome, runCall, type TimerProvider } from 'backoff-core/adapter';
import { EventQueue } from './event-queue.js';
import { Network, OK, response } from './request.js';
import { deriveSeed, mulberry32 } from './rng.js';
import { Histogram } from './stats.js';

export interface DeadBackendConfig {
  /** New calls per second (first attempts), evenly spaced. */
  readonly rate: number;
  /** The backend is healthy until `downFrom`, dead (503 to everything) until `downTo`, then healthy again (ms). */
  readonly downFrom: number;
  readonly downTo: number;
  /** How long new calls keep coming, in ms. */
  readonly duration: number;
  /** The network's one-way delay, mean in ms. */
  readonly latency: number;
  readonly seed: number;
}

export interface DeadBackendResult {
  readonly breaker: boolean;
  readonly calls: number;
  /** Requests that reached the backend while it was dead. */
  readonly reachedDead: number;
  /** Per 100 ms: calls started, requests reaching the dead backend, calls that succeeded (by start time). */
  readonly started: Histogram;
  readonly dead: Histogram;
  readonly load: Histogram;
  readonly succeeded: Histogram;
  /** Calls that failed at once on an open circuit: nothing sent. */
  readonly failedFast: number;
  /** The breaker's state changes (empty without one). */
  readonly changes: readonly CircuitStateChange[];
  /** The first call that succeeded after the backend came back: when it ended, in ms. */
  readonly firstSuccessAfterReturn: number | undefined;
  /** What the client's BackoffMetrics counted. */
  readonly metrics: BackoffMetricsSnapshot;
  /** Calls that ended, each exactly once (a conservation check). */
  readonly finished: number;
  readonly end: number;
}

const ORIGIN = 'https://backend.internal';

/** The core's waits on the simulation's virtual clock: a timer is an event in the queue. */
function virtualTimers(queue: EventQueue): TimerProvider {
  return {
    setTimeout: (callback, ms) => {
      const handle = { cleared: false };
      queue.after(ms, () => {
        if (!handle.cleared) callback();
      });
      return handle;
    },
    clearTimeout: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
}

/**
 * One client process sends `rate` calls per second to one backend that is dead for a while. Every call goes
 * through backoff-core as an adapter drives it: the core's runner (`runCall`) starts the call (which an open
 * circuit refuses), decides each attempt and waits on virtual timers (so the breaker's check after a wait runs
 * too). The one policy has the default budget and, with `breaker`, a `CircuitBreaker` with its defaults.
 */
export async function runDeadBackend(
  config: DeadBackendConfig,
  breaker: boolean,
): Promise<DeadBackendResult> {
  const queue = new EventQueue();
  const network = new Network(queue, config.latency, mulberry32(deriveSeed(config.seed, 'dead', 'network')));
  const changes: CircuitStateChange[] = [];
  const metrics = new BackoffMetrics();
  const policy = createBackoff({
    random: mulberry32(deriveSeed(config.seed, 'dead', 'jitter')),
    now: () => queue.now,
    timers: virtualTimers(queue),
    metrics,
    circuitBreaker: breaker ? new CircuitBreaker({ onStateChange: (change) => changes.push(change) }) : false,
  });
  const started = new Histogram(100);
  const dead = new Histogram(100);
  const load = new Histogram(100);
  const succeeded = new Histogram(100);
  let calls = 0;
  let reachedDead = 0;
  let failedFast = 0;
  let finished = 0;
  let firstSuccessAfterReturn: number | undefined;
  let end = 0;

  const handle = (now: number): Outcome => {
    load.add(now);
    if (now >= config.downFrom && now < config.downTo) {
      reachedDead++;
      dead.add(now);
      return response(503);
    }
    return OK;
  };
  const send = () => new Promise<Outcome>((resolve) => network.call(handle, resolve));

  const call = async (at: number) => {
    calls++;
    started.add(at);
    let sent = 0;
    // The simulated network is the client: every attempt is one message there and back.
    const client: Client<Outcome> = {
      next: () => ({ headers: undefined }),
      send: () => {
        sent++;
        return send();
      },
      outcome: (settled) =>
        settled.ok ? settled.value : { type: 'error', kind: 'unknown', error: settled.error },
      signal: () => undefined,
      finish: (settled) => {
        if (!settled.ok) throw settled.error;
        return settled.value;
      },
    };
    try {
      const outcome = await runCall(policy, { method: 'GET', url: `${ORIGIN}/items` }, client);
      if (outcome.type === 'response' && outcome.status === 200) {
        succeeded.add(at);
        if (queue.now >= config.downTo && firstSuccessAfterReturn === undefined)
          firstSuccessAfterReturn = queue.now;
      }
    } catch {
      // Refused by the open circuit: before anything was sent, or after a wait (the retry is not sent).
      if (sent === 0) {
        failedFast++;
        finished++;
        return;
      }
    }
    finished++;
    end = Math.max(end, queue.now);
  };

  const spacing = 1000 / config.rate;
  for (let i = 0; i * spacing < config.duration; i++) queue.at(i * spacing, () => void call(i * spacing));
  // Each event may resolve promises (a response, a wait's end): let their continuations run before the next one.
  while (queue.step()) await new Promise<void>((resolve) => setImmediate(resolve));

  return {
    breaker,
    calls,
    reachedDead,
    started,
    dead,
    load,
    succeeded,
    failedFast,
    changes,
    firstSuccessAfterReturn,
    metrics: metrics.snapshot(),
    finished,
    end,
  };
}
