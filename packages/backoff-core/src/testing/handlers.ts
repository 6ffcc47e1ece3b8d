import { type HttpHandler, HttpResponse, http, type Path } from 'msw';
import { checked, fail, oneOf, range } from '../options/check.js';
import { describeValue } from '../options/show.js';
import { sleep } from '../run/sleep.js';
import { holdRequest, kitClock } from './clock.js';

/** What a handler of the kit answered a request: a status, a network error, or `'passed'` (chaos let it through). */
export type Answer = number | 'network-error' | 'passed';

/** One request as a handler of the kit received it: the server side's record. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  /** A copy of the request's headers. */
  readonly headers: Headers;
  /** The request's `Idempotency-Key`, `null` without one. */
  readonly idempotencyKey: string | null;
  /** The request's body as text (`''` without one). */
  readonly body: string;
  /** When it arrived, on the kit's clock (ms since the epoch). */
  readonly at: number;
  /** What the handler answered; `undefined` while it is still answering. */
  readonly answer: Answer | undefined;
}

/** An MSW handler that counts what it received: `requests`, in the order they arrived. */
export type KitHandler = HttpHandler & { readonly requests: readonly ReceivedRequest[] };

/** What a handler's own code answers: a response, or `undefined` to let MSW try the next handler. */
type Resolve = (request: Request, index: number) => Response | undefined | Promise<Response | undefined>;

/** An MSW handler for every method on `path` that records each request and what it answered. */
export function kitHandler(name: string, path: Path, resolve: Resolve): KitHandler {
  const requests: ReceivedRequest[] = [];
  const handler = http.all(path, async ({ request }) => {
    const received = {
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      idempotencyKey: request.headers.get('idempotency-key'),
      body: await request.clone().text(),
      at: kitClock().now(),
      answer: undefined as Answer | undefined,
    };
    const index = requests.push(received) - 1;
    const release = holdRequest(`${request.method} ${request.url} at ${name}()`);
    try {
      const response = await resolve(request, index);
      received.answer =
        response === undefined ? 'passed' : response.type === 'error' ? 'network-error' : response.status;
      return response;
    } finally {
      release(String(received.answer ?? 'an error'));
    }
  });
  return Object.assign(handler, { requests: requests as readonly ReceivedRequest[] });
}

/**
 * Waits `ms` on the kit's clock before an answer; `false` when the client gave up first (its signal aborted: a
 * network error then ends the request, as a server's late answer finds the socket gone).
 */
export async function waited(ms: number, request: Request): Promise<boolean> {
  if (ms <= 0) return true;
  try {
    await sleep(ms, request.signal, kitClock().timers);
    return true;
  } catch {
    return false;
  }
}

/**
 * One scripted answer: a status, a full response, or `'network-error'` (the connection fails before any answer:
 * fetch rejects with a TypeError, axios with `ERR_NETWORK`).
 */
export type Step =
  | number
  | 'network-error'
  | {
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>> | undefined;
      readonly body?: string | undefined;
    };

/** The response for one step. */
export function answer(step: Step): Response {
  if (step === 'network-error') return HttpResponse.error();
  if (typeof step === 'number') return new HttpResponse(String(step), { status: step });
  return new HttpResponse(step.body ?? String(step.status), {
    status: step.status,
    headers: step.headers ?? {},
  });
}

const status = range(599, 200, 'an integer');

function checkStep(step: unknown, name: string): Step {
  if (step === 'network-error') return step;
  if (typeof step === 'number') return status(step, name) as Step;
  if (typeof step !== 'object' || step === null)
    fail(name, step, `a status, 'network-error' or { status, headers, body }, got ${describeValue(step)}`);
  checked(step, { status, headers: null, body: null }, 'step', `${name} to be an object`, `${name}.`);
  if ((step as { status?: unknown }).status === undefined)
    fail(`${name}.status`, undefined, 'a status from 200 to 599');
  return step as Step;
}

/**
 * A server that answers `steps` in order, one per request, then repeats the last: `flaky(url, [503, 503, 200])`.
 * A step is a status, `{ status, headers, body }` (a `Retry-After`, say) or `'network-error'`.
 */
export function flaky(url: Path, steps: readonly Step[]): KitHandler {
  if (!Array.isArray(steps) || steps.length === 0)
    fail('flaky steps', steps, `a list of at least one step ([503, 200]), got ${describeValue(steps)}`);
  const script = steps.map((step, i) => checkStep(step, `flaky steps[${i}]`));
  return kitHandler('flaky', url, (_request, index) =>
    answer(script[Math.min(index, script.length - 1)] as Step),
  );
}

/** Options of `rateLimited`. */
export interface RateLimitedOptions {
  /** Requests allowed per window. */
  quota: number;
  /** The window, in ms; it starts with the first request after the previous window ended. */
  window: number;
  /**
   * How the server tells its limit: `'draft-8'`, the RateLimit fields on every answer (`RateLimit-Policy:
   * "default";q=Q;w=W` and `RateLimit: "default";r=R;t=T`, in whole seconds); `'retry-after'`, a `Retry-After` on
   * each 429 and nothing else; `'bare'`, nothing at all (a 429 alone).
   * @default 'draft-8'
   */
  headers?: 'draft-8' | 'retry-after' | 'bare' | undefined;
}

const RATE_CHECKS = {
  quota: range(Number.MAX_SAFE_INTEGER, 1, 'an integer'),
  window: range(Number.MAX_SAFE_INTEGER, 1),
  headers: oneOf(['draft-8', 'retry-after', 'bare']),
};

/** A server with a fixed-window rate limit: 200 within `quota` requests per `window`, 429 over it. */
export function rateLimited(url: Path, options: RateLimitedOptions): KitHandler {
  const {
    quota,
    window,
    headers = 'draft-8',
  } = checked(
    options,
    RATE_CHECKS,
    'rateLimited',
    'the rateLimited options ({ quota, window }) to be an object',
    'rateLimited.',
  ) as Partial<RateLimitedOptions>;
  if (quota === undefined || window === undefined)
    fail(
      `rateLimited.${quota === undefined ? 'quota' : 'window'}`,
      undefined,
      'given: the requests allowed per window and the window in ms (100 a minute: { quota: 100, window: 60_000 })',
    );
  let start = Number.NEGATIVE_INFINITY;
  let count = 0;
  return kitHandler('rateLimited', url, () => {
    const now = kitClock().now();
    if (now >= start + window) [start, count] = [now, 0];
    count++;
    const reset = String(Math.max(1, Math.ceil((start + window - now) / 1000)));
    const fields: Record<string, string> =
      headers === 'draft-8'
        ? {
            'RateLimit-Policy': `"default";q=${quota};w=${Math.ceil(window / 1000)}`,
            RateLimit: `"default";r=${Math.max(0, quota - count)};t=${reset}`,
          }
        : {};
    if (count <= quota) return new HttpResponse('ok', { status: 200, headers: fields });
    if (headers === 'retry-after') fields['Retry-After'] = reset;
    return new HttpResponse('Too Many Requests', { status: 429, headers: fields });
  });
}

/** Options of `down`. */
export interface DownOptions {
  /** How long the server is down, in ms from the first request it gets. */
  forMs: number;
  /** The `Retry-After` it sends while down: seconds, or a string sent as it is (an HTTP-date). */
  retryAfter?: number | string | undefined;
  /**
   * The status it answers while down.
   * @default 503
   */
  status?: number | undefined;
}

const DOWN_CHECKS = {
  forMs: range(Number.MAX_SAFE_INTEGER),
  retryAfter: (value: unknown, name: string) =>
    typeof value === 'string' ? value : range(Number.MAX_SAFE_INTEGER)(value, name),
  status,
};

/** A server that is down (503) for `forMs` from its first request, then answers 200. */
export function down(url: Path, options: DownOptions): KitHandler {
  const {
    forMs,
    retryAfter,
    status: downStatus = 503,
  } = checked(
    options,
    DOWN_CHECKS,
    'down',
    'the down options ({ forMs }) to be an object',
    'down.',
  ) as Partial<DownOptions>;
  if (forMs === undefined)
    fail('down.forMs', undefined, 'given: how long the server is down, in ms (a minute: { forMs: 60_000 })');
  let since: number | undefined;
  return kitHandler('down', url, () => {
    const now = kitClock().now();
    since ??= now;
    if (now >= since + forMs) return new HttpResponse('ok', { status: 200 });
    const headers: Record<string, string> =
      retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
    return new HttpResponse('down', { status: downStatus, headers });
  });
}

/** Options of `slow`. */
export interface SlowOptions {
  /**
   * Which requests are slow: every nth (the nth, the 2nth...). 1: every one.
   * @default 1
   */
  everyNth?: number | undefined;
  /** How long a slow answer takes, in ms of the kit's clock. */
  ms: number;
  /**
   * What it answers.
   * @default 200
   */
  status?: number | undefined;
}

const SLOW_CHECKS = {
  everyNth: range(Number.MAX_SAFE_INTEGER, 1, 'an integer'),
  ms: range(Number.MAX_SAFE_INTEGER),
  status,
};

/**
 * A server whose every nth answer takes `ms` (on the kit's clock), the others none: for `attemptTimeout`, a
 * hedge, axios's and ky's `timeout`. A client that gives up first gets a network error.
 */
export function slow(url: Path, options: SlowOptions): KitHandler {
  const {
    everyNth = 1,
    ms,
    status: slowStatus = 200,
  } = checked(
    options,
    SLOW_CHECKS,
    'slow',
    'the slow options ({ ms }) to be an object',
    'slow.',
  ) as Partial<SlowOptions>;
  if (ms === undefined)
    fail('slow.ms', undefined, 'given: how long a slow answer takes, in ms ({ ms: 5000 })');
  return kitHandler('slow', url, async (request, index) => {
    const late = (index + 1) % everyNth === 0;
    if (late && !(await waited(ms, request))) return HttpResponse.error();
    return new HttpResponse(String(slowStatus), { status: slowStatus });
  });
}
