import { HttpResponse, type Path } from 'msw';
import { checked, fail, range } from '../options/check.js';
import { describeValue } from '../options/show.js';
import { type KitHandler, kitHandler, waited } from './handlers.js';
import { seededRandom } from './random.js';

/** Options of `chaos`. */
export interface ChaosOptions {
  /** The seed: the same seed, and the same requests in the same order, give the same faults. */
  seed: number;
  /**
   * The requests it stands in front of (an MSW path).
   * @default '*' (every request)
   */
  url?: Path | undefined;
  /**
   * The share of requests answered with one of `statuses`, from 0 to 1.
   * @default 0
   */
  failRate?: number | undefined;
  /**
   * The statuses of those failures, drawn evenly.
   * @default [500, 502, 503, 504]
   */
  statuses?: readonly number[] | undefined;
  /**
   * The share of requests whose connection fails before any answer (a network error), from 0 to 1.
   * @default 0
   */
  resetRate?: number | undefined;
  /**
   * Time added before every answer, passed on or not, in ms of the kit's clock: a number, or `[min, max]` drawn
   * evenly.
   * @default 0
   */
  latency?: number | readonly [number, number] | undefined;
}

const rate = range(1, 0);
const delay = range();

const CHECKS = {
  seed: range(2 ** 32 - 1, 0, 'an integer'),
  url: null,
  failRate: rate,
  resetRate: rate,
  statuses: (value: unknown, name: string) => {
    if (!Array.isArray(value) || value.length === 0)
      fail(name, value, `a list of at least one status ([503]), got ${describeValue(value)}`);
    return value.map((status, i) => range(599, 400, 'an integer')(status, `${name}[${i}]`));
  },
  latency: (value: unknown, name: string) => {
    if (!Array.isArray(value)) return delay(value, name);
    if (value.length !== 2) fail(name, value, `a number or [min, max], got a list of ${value.length}`);
    const [min, max] = value.map((ms, i) => delay(ms, `${name}[${i}]`) as number) as [number, number];
    if (min > max) fail(name, value, `[min, max] with min <= max, got [${min}, ${max}]`, RangeError);
    return [min, max];
  },
};

/**
 * Seeded chaos for an app's integration tests: put it in front of your own handlers (`server.use(chaos(...))`)
 * and each request, drawn from the seed, fails its connection (`resetRate`), gets one of `statuses`
 * (`failRate`), or goes on to your handlers, after `latency`. `requests[i].answer` says which (`'passed'`).
 */
export function chaos(options: ChaosOptions): KitHandler {
  const valid = checked(
    options,
    CHECKS,
    'chaos',
    'the chaos options ({ seed }) to be an object',
    'chaos.',
  ) as Partial<ChaosOptions> & { latency?: number | [number, number] };
  if (valid.seed === undefined)
    fail('chaos.seed', undefined, 'given: a number that makes the faults repeatable ({ seed: 42 })');
  const { url = '*', failRate = 0, resetRate = 0, statuses = [500, 502, 503, 504], latency = 0 } = valid;
  const random = seededRandom(valid.seed);
  return kitHandler('chaos', url, async (request) => {
    // Every draw is made for every request, so one request's fate never shifts the next one's.
    const [wait, reset, failure, pick] = [random(), random(), random(), random()];
    const ms =
      typeof latency === 'number' ? latency : Math.round(latency[0] + wait * (latency[1] - latency[0]));
    if (!(await waited(ms, request)) || reset < resetRate) return HttpResponse.error();
    if (failure < failRate) {
      const status = statuses[Math.floor(pick * statuses.length)] as number;
      return new HttpResponse(String(status), { status });
    }
    return undefined;
  });
}
