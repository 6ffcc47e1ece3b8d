import { createBackoff, type Jitter } from 'backoff-core';
import { startCall } from 'backoff-core/adapter';
import { EventQueue } from './event-queue.js';
import { drive, Network, OK, response } from './request.js';
import { deriveSeed, mulberry32 } from './rng.js';
import { mean } from './stats.js';

/** The jitter strategies of the AWS experiment, as backoff-core's `jitter` option. */
export const CONTENTION_JITTERS: ReadonlyArray<{ readonly jitter: Jitter; readonly label: string }> = [
  { jitter: 'none', label: 'exponential, no jitter' },
  { jitter: 'full', label: 'full jitter' },
  { jitter: 'equal', label: 'equal jitter' },
  { jitter: 'decorrelated', label: 'decorrelated jitter' },
];

export interface ContentionConfig {
  readonly clients: number;
  /** The network's one-way delay (request or response), mean in ms: a call takes about twice that. */
  readonly latency: number;
  /** The blog's base 5 ms and cap 2 s. */
  readonly baseDelay: number;
  readonly maxDelay: number;
  /** Retries allowed per client: the core's maximum (100), so in practice nobody gives up. */
  readonly retries: number;
  readonly seed: number;
}

/** One run of the contention scenario with one jitter. */
export interface ContentionRun {
  readonly clients: number;
  readonly jitter: Jitter;
  /** Attempts (each a read and a conditional write), counted at the server: the blog's "calls". */
  readonly calls: number;
  /** Attempts as the clients' calls counted them; equals `calls`. */
  readonly attempts: number;
  /** Requests on the wire: a read and a write per attempt. */
  readonly requests: number;
  readonly committed: number;
  readonly gaveUp: number;
  readonly finishes: readonly number[];
  /** When the last client committed (or gave up), in ms. */
  readonly completion: number;
}

/**
 * The experiment of the AWS Architecture Blog post "Exponential Backoff And Jitter" (2015): every client updates
 * the same row once with optimistic concurrency. An attempt reads the row's version, then writes with
 * `If-Match: version`; if another write landed in between, the server answers 412 and the client backs off, then
 * re-reads. The core retries the 412 because the simulator lists it in `statusCodes` (a conditional PUT is safe
 * to repeat); the budget is off, as in the blog.
 */
export function runContention(config: ContentionConfig, jitter: Jitter): ContentionRun {
  const queue = new EventQueue();
  const network = new Network(
    queue,
    config.latency,
    mulberry32(deriveSeed(config.seed, 'contention', config.clients, 'network')),
  );
  let version = 0;
  let reads = 0;
  let writes = 0;
  let attempts = 0;
  let committed = 0;
  let completion = 0;
  const finishes = new Array<number>(config.clients).fill(0);

  for (let i = 0; i < config.clients; i++) {
    const policy = createBackoff({
      baseDelay: config.baseDelay,
      maxDelay: config.maxDelay,
      retries: config.retries,
      jitter,
      statusCodes: [412],
      budget: false,
      random: mulberry32(deriveSeed(config.seed, 'contention', config.clients, 'jitter', i)),
      now: () => queue.now,
    });
    const state = startCall(policy, { method: 'PUT', url: '/row' });
    drive(
      queue,
      state,
      (respond) => {
        network.call(
          () => {
            reads++;
            return version;
          },
          (seen) =>
            network.call(() => {
              writes++;
              if (version !== seen) return response(412);
              version++;
              return OK;
            }, respond),
        );
      },
      {
        onFinish: (_decision, outcome) => {
          finishes[i] = (finishes[i] ?? 0) + 1;
          attempts += state.attempts;
          completion = Math.max(completion, queue.now);
          if (outcome.type === 'response' && outcome.status === 200) committed++;
        },
      },
    );
  }
  queue.run();
  if (reads !== writes)
    throw new Error(`Every read is followed by one write: ${reads} reads, ${writes} writes.`);
  return {
    clients: config.clients,
    jitter,
    calls: writes,
    attempts,
    requests: reads + writes,
    committed,
    gaveUp: config.clients - committed,
    finishes,
    completion,
  };
}

/** The mean over several seeds of one (clients, jitter) point. */
export interface ContentionPoint {
  readonly clients: number;
  readonly jitter: Jitter;
  readonly calls: number;
  readonly completion: number;
  readonly gaveUp: number;
  readonly runs: readonly ContentionRun[];
}

export interface ContentionSweep {
  /** The blog's 5 ms. backoff-core's first retry waits up to `baseDelay` (base x 2^(n-1)). */
  readonly baseDelay: number;
  readonly minClients: number;
  readonly maxClients: number;
  readonly step: number;
  /** Seeds per point: each point is the mean of this many runs. */
  readonly runs: number;
  readonly latency: number;
  readonly seed: number;
}

/** Every client count from min to max by step, every jitter, `runs` seeds each. */
export function sweepContention(
  sweep: ContentionSweep,
  onProgress: (done: number, total: number) => void = () => {},
): ContentionPoint[] {
  const counts: number[] = [];
  for (let n = sweep.minClients; n <= sweep.maxClients; n += sweep.step) counts.push(n);
  const total = counts.length * CONTENTION_JITTERS.length * sweep.runs;
  let done = 0;
  const points: ContentionPoint[] = [];
  for (const clients of counts) {
    for (const { jitter } of CONTENTION_JITTERS) {
      const runs: ContentionRun[] = [];
      for (let r = 0; r < sweep.runs; r++) {
        const config: ContentionConfig = {
          clients,
          latency: sweep.latency,
          baseDelay: sweep.baseDelay,
          maxDelay: 2000,
          retries: 100,
          seed: deriveSeed(sweep.seed, 'run', r),
        };
        runs.push(runContention(config, jitter));
        onProgress(++done, total);
      }
      points.push({
        clients,
        jitter,
        calls: mean(runs.map((run) => run.calls)),
        completion: mean(runs.map((run) => run.completion)),
        gaveUp: mean(runs.map((run) => run.gaveUp)),
        runs,
      });
    }
  }
  return points;
}
