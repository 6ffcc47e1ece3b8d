import { createBackoff, type RetryBudgetSnapshot } from 'backoff-core';
import { startCall } from 'backoff-core/adapter';
import { EventQueue } from './event-queue.js';
import { drive, Network, OK, response } from './request.js';
import { deriveSeed, mulberry32 } from './rng.js';
import { Histogram } from './stats.js';

export interface AmplificationConfig {
  /** New requests per second, evenly spaced. */
  readonly rate: number;
  /** How long new requests keep coming, in ms (the run lasts until the last one finishes). */
  readonly duration: number;
  /** The backend answers 503 to everything in [failFrom, failTo), in ms. */
  readonly failFrom: number;
  readonly failTo: number;
  /** The network's one-way delay, mean in ms. */
  readonly latency: number;
  readonly seed: number;
}

/** One phase of the run: requests started in it and the load the server saw during it. */
export interface Phase {
  readonly label: string;
  readonly from: number;
  readonly to: number;
  /** Logical requests started in the phase. */
  readonly requests: number;
  /** Attempts that reached the server during the phase. */
  readonly calls: number;
  /** Requests started in the phase that ended in a 503 for their caller. */
  readonly failed: number;
}

export interface AmplificationResult {
  readonly budget: boolean;
  readonly requests: number;
  readonly calls: number;
  readonly attempts: number;
  readonly failed: number;
  readonly finishes: readonly number[];
  /** Per-second buckets: new requests sent, and attempts that reached the server. */
  readonly offered: Histogram;
  readonly load: Histogram;
  /** Retries the budget refused (0 without a budget). */
  readonly refused: number;
  readonly phases: readonly Phase[];
  /** The budget at the end of each second (empty without a budget). */
  readonly budgetBySecond: readonly RetryBudgetSnapshot[];
  readonly end: number;
}

/**
 * One client (one `createBackoff()` with its defaults: 3 retries, full jitter, 1 s base) sending steady traffic
 * to a backend that fails completely for a while, with the default budget or with `budget: false`. The budget is
 * the one thing that differs between the two runs; the network, the arrival times and the jitter draws are the
 * same streams.
 */
export function runAmplification(config: AmplificationConfig, budget: boolean): AmplificationResult {
  const queue = new EventQueue();
  const network = new Network(queue, config.latency, mulberry32(deriveSeed(config.seed, 'amp', 'network')));
  const policy = createBackoff({
    random: mulberry32(deriveSeed(config.seed, 'amp', 'jitter')),
    now: () => queue.now,
    ...(budget ? {} : { budget: false }),
  });
  const offered = new Histogram(1000);
  const load = new Histogram(1000);
  const failing = (now: number) => now >= config.failFrom && now < config.failTo;
  const total = Math.floor((config.duration * config.rate) / 1000);
  const interval = 1000 / config.rate;
  const finishes = new Array<number>(total).fill(0);
  const started: number[] = [];
  const failedAt: boolean[] = [];
  const arrivals: number[] = [];
  let attempts = 0;
  let refused = 0;
  let end = 0;

  for (let i = 0; i < total; i++) {
    const at = i * interval;
    started.push(at);
    queue.at(at, () => {
      offered.add(at);
      const state = startCall(policy, { method: 'GET', url: '/feed' });
      drive(
        queue,
        state,
        (respond) =>
          network.call((now) => {
            load.add(now);
            arrivals.push(now);
            return failing(now) ? response(503) : OK;
          }, respond),
        {
          onFinish: (decision, outcome) => {
            finishes[i] = (finishes[i] ?? 0) + 1;
            attempts += state.attempts;
            end = Math.max(end, queue.now);
            failedAt[i] = !(outcome.type === 'response' && outcome.status === 200);
            if (decision.reason === 'budget-exhausted') refused++;
          },
        },
      );
    });
  }

  // Sample the budget at each whole second, between events.
  const budgetBySecond: RetryBudgetSnapshot[] = [];
  if (policy.budget) {
    const sample = (second: number): void => {
      budgetBySecond.push((policy.budget as NonNullable<typeof policy.budget>).snapshot());
      if (queue.size > 0) queue.at((second + 1) * 1000, () => sample(second + 1));
    };
    queue.at(1000, () => sample(1));
  }
  queue.run();

  const phase = (label: string, from: number, to: number): Phase => {
    let requests = 0;
    let failed = 0;
    for (let i = 0; i < total; i++) {
      const at = started[i] as number;
      if (at >= from && at < to) {
        requests++;
        if (failedAt[i]) failed++;
      }
    }
    const calls = arrivals.filter((t) => t >= from && t < to).length;
    return { label, from, to, requests, calls, failed };
  };
  const lastArrival = Math.max(config.duration, ...arrivals.slice(-1)) + 1;

  return {
    budget,
    requests: total,
    calls: arrivals.length,
    attempts,
    failed: failedAt.filter(Boolean).length,
    finishes,
    offered,
    load,
    refused,
    phases: [
      phase('before the outage', 0, config.failFrom),
      phase('during the outage', config.failFrom, config.failTo),
      phase('after recovery', config.failTo, lastArrival),
    ],
    budgetBySecond,
    end,
  };
}
