import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Arrival, startLimiter } from './limiter.ts';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** The store's options for its wait for Redis. */
export interface StoreWait {
  readonly timeout?: number | undefined;
  readonly minTimeout?: number | undefined;
}

/** What one worker process is told. */
export interface WorkerConfig {
  readonly url: string;
  /** A Redis to share a store through, or none (a pacer or breaker per process). */
  readonly redis: string | undefined;
  readonly prefix: string;
  readonly feature: 'pacer' | 'breaker';
  readonly calls: number;
  /** This worker's first call after the fleet's start (sent on its stdin), and the time between its calls. */
  readonly offset: number;
  readonly interval: number;
  readonly retries: number;
  readonly deadline: number;
  /** The store's wait for Redis, `timeout` and `minTimeout` (its defaults when absent). */
  readonly wait?: StoreWait | undefined;
}

/** What a worker printed. */
export type WorkerEvent =
  | {
      type: 'call';
      started: number;
      ended: number;
      status?: number;
      error?: string;
      code?: string;
      worker: number;
    }
  | { type: 'fallback' | 'resume'; at: number; worker: number }
  | { type: 'state'; to: string; at: number; worker: number }
  | { type: 'done' | 'ready'; worker: number };

export interface FleetRun {
  readonly start: number;
  readonly arrivals: readonly Arrival[];
  readonly events: readonly WorkerEvent[];
  /** Answers 429 the limiter gave, and when the last call ended, ms after the start. */
  readonly throttled: number;
  readonly last: number;
}

export interface FleetOptions {
  readonly processes: number;
  readonly calls: number;
  /** New calls per second across the fleet. */
  readonly rate: number;
  readonly limit: number;
  readonly window: number;
  readonly headers: boolean;
  readonly feature: 'pacer' | 'breaker';
  /** The Redis to share through (`undefined`: each process on its own). */
  readonly redis: string | undefined;
  readonly retries?: number;
  readonly deadline?: number;
  readonly wait?: StoreWait | undefined;
  /** Things to do during the run, ms after its start (kill Redis, take the backend down). */
  readonly during?: (
    at: (ms: number, act: () => unknown) => void,
    limiter: { down(on: boolean): void },
  ) => void;
}

let runs = 0;

/** Runs a fleet of worker processes against a fresh limiter, and gathers what they and the limiter saw. */
export async function runFleet(options: FleetOptions): Promise<FleetRun> {
  const limiter = await startLimiter({
    limit: options.limit,
    window: options.window,
    headers: options.headers,
  });
  const prefix = `fleet${process.pid}-${++runs}-${Date.now()}:`;
  let start = Number.POSITIVE_INFINITY;
  let ready = 0;
  const children: import('node:child_process').ChildProcess[] = [];
  /** Every process loaded and connected: the fleet starts a little later, and its timed acts with it. */
  const go = () => {
    // On a window's edge: every run meets the limiter alike.
    start = Math.ceil((Date.now() + 200) / options.window) * options.window;
    for (const child of children) child.stdin?.write(`${start}\n`);
    options.during?.((ms, act) => {
      timers.push(setTimeout(act, start + ms - Date.now()));
    }, limiter);
  };
  const perProcess = options.calls / options.processes;
  const interval = (1000 * options.processes) / options.rate;
  const events: WorkerEvent[] = [];
  const timers: ReturnType<typeof setTimeout>[] = [];
  try {
    await Promise.all(
      Array.from({ length: options.processes }, (_, worker) => {
        const config: WorkerConfig = {
          url: limiter.url,
          redis: options.redis,
          prefix,
          feature: options.feature,
          calls: perProcess,
          offset: (worker * 1000) / options.rate,
          interval,
          retries: options.retries ?? 20,
          deadline: options.deadline ?? 30_000,
          wait: options.wait,
        };
        return new Promise<void>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', '--conditions=@backoff/source', WORKER, JSON.stringify(config)],
            { stdio: ['pipe', 'pipe', 'inherit'] },
          );
          children.push(child);
          let buffer = '';
          child.stdout.on('data', (chunk: Buffer) => {
            buffer += chunk.toString();
            const lines = buffer.split('\n');
            buffer = lines.pop() ?? '';
            for (const line of lines) {
              if (line.trim() === '') continue;
              const event = { ...JSON.parse(line), worker } as WorkerEvent;
              if (event.type === 'ready') {
                if (++ready === options.processes) go();
              } else events.push(event);
            }
          });
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`worker ${worker} exited with ${code}`)),
          );
        });
      }),
    );
  } finally {
    for (const timer of timers) clearTimeout(timer);
    await limiter.close();
  }
  const calls = events.filter((event) => event.type === 'call');
  return {
    start,
    arrivals: limiter.arrivals,
    events,
    throttled: limiter.arrivals.filter((arrival) => arrival.status === 429).length,
    last: Math.max(...calls.map((call) => call.ended)) - start,
  };
}
