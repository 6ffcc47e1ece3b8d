import axios, { type AxiosAdapter, AxiosHeaders, type InternalAxiosRequestConfig } from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { gc } from './gc.js';
import { MockTransport, requestUrl } from './mock-transport.js';
import { type Spread, spread } from './stats.js';

/**
 * Measure 1d: axios-backoff's own functions per successful GET, without axios around them. Measure 1 times the
 * whole client, where a difference of a µs sits on ~30 µs of axios and reads within its A/A spread; here only
 * what axios-backoff runs is timed: the request interceptor it registers and the adapter that interceptor sets,
 * called directly on a config shaped as axios builds one, against calling the same mock adapter directly. What
 * measure 1 adds on top of this is axios running a request interceptor and an adapter other than its own.
 */
export interface OwnWorkOptions {
  /** Timed rounds; each times both ways once, in alternating order. @default 15 */
  readonly rounds?: number;
  /** Calls per way per round. @default 100_000 */
  readonly calls?: number;
  /** Untimed calls per way before the first round. @default 200_000 */
  readonly warmup?: number;
}

export interface OwnWorkResult {
  /** CPU µs per call of the mock adapter alone. */
  readonly bareUs: Spread;
  /** Per round: CPU µs per call through axios-backoff's interceptor and adapter, minus the bare call's. */
  readonly addedUs: Spread;
  readonly rounds: number;
  readonly calls: number;
}

type Interceptor = (config: InternalAxiosRequestConfig) => InternalAxiosRequestConfig;

/** The request interceptor `axiosBackoff` registered on `instance` (axios keeps them in `handlers`). */
function interceptorOf(instance: ReturnType<typeof axios.create>): Interceptor {
  const { handlers } = instance.interceptors.request as unknown as {
    handlers?: ({ fulfilled?: Interceptor } | null)[];
  };
  const fulfilled = handlers?.find((handler) => handler !== null)?.fulfilled;
  if (fulfilled === undefined) throw new Error('own-work: axiosBackoff registered no request interceptor.');
  return fulfilled;
}

async function timed(calls: number, call: () => Promise<unknown>): Promise<number> {
  gc();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

export async function runOwnWork(options: OwnWorkOptions = {}): Promise<OwnWorkResult> {
  const rounds = options.rounds ?? 15;
  const calls = options.calls ?? 100_000;
  const warmup = options.warmup ?? 200_000;
  const mock = new MockTransport(() => 200);
  const adapter: AxiosAdapter = mock.axiosAdapter;
  const instance = axios.create({ adapter });
  axiosBackoff(instance);
  const intercept = interceptorOf(instance);
  const url = requestUrl(0);
  // What axios hands its request interceptors: the instance's defaults merged with the request's own options.
  const config = () =>
    ({
      ...instance.defaults,
      method: 'get',
      url,
      headers: new AxiosHeaders({ Accept: 'application/json, text/plain, */*' }),
    }) as InternalAxiosRequestConfig;
  const bare = () => adapter(config());
  const through = () => {
    const sent = intercept(config());
    return (sent.adapter as AxiosAdapter)(sent);
  };
  await timed(warmup, bare);
  await timed(warmup, through);
  const bareUs: number[] = [];
  const addedUs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so that neither always runs right after a GC of the other's garbage.
    const [first, second] = round % 2 === 0 ? [bare, through] : [through, bare];
    const a = await timed(calls, first);
    const b = await timed(calls, second);
    const [bareCost, throughCost] = first === bare ? [a, b] : [b, a];
    bareUs.push(bareCost);
    addedUs.push(throughCost - bareCost);
  }
  if (mock.totalAttempts !== 2 * (warmup + rounds * calls)) {
    throw new Error(`own-work: ${mock.totalAttempts} attempts reached the mock, not one per call.`);
  }
  return { bareUs: spread(bareUs), addedUs: spread(addedUs), rounds, calls };
}
