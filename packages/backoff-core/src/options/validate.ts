import { checkResume } from '../features/resume/options.js';
import { checkBudget, isRetryBudget, RetryBudget } from '../run/budget.js';
import { browserNetworkStatus } from '../run/offline.js';
import { defaultTimers } from '../run/sleep.js';
import {
  briefly,
  type Check,
  checked,
  fail,
  fn,
  MAX_TIMER_DELAY,
  oneOf,
  orInfinity,
  range,
  report,
  withMethods,
} from './check.js';
import {
  type BackoffOptions,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  DEFAULTS,
  type ResolvedOptions,
} from './options.js';
import { type PeerOptionNames, peerOptionHint } from './peer-names.js';
import { describeValue, show } from './show.js';

export { MAX_TIMER_DELAY } from './check.js';

// Bundlers replace it (see check.ts): a production bundle leaves out the peers' names and the long explanations.
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

// RFC 9110 token characters: what a method or a header name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** An array whose every item passes `valid`, as a Set (`describe` shows a bad item in the message). */
const list =
  (
    valid: (item: unknown) => boolean,
    items: string,
    Kind: typeof TypeError,
    describe?: (value: unknown) => string | undefined,
  ): Check =>
  (value, name) => {
    if (!Array.isArray(value)) fail(name, value, `an array of ${items}, got ${describeValue(value)}`);
    for (const item of value)
      if (!valid(item)) fail(name, item, `an array of ${items}, got ${show(item, describe)}`, Kind);
    return new Set(value);
  };

// Arrow functions, not references, so fake timers and spies installed later still take effect.
const defaultRandom = (): number => Math.random();
const defaultNow = (): number => Date.now();

const delay = range();
// "No limit" has a spelling: `Infinity` is the longest timer (about 24.8 days) for a cap on waits, and no deadline.
const longest = orInfinity(delay, MAX_TIMER_DELAY);
const bool = oneOf([true, false], 'a boolean');
const JITTERS = ['full', 'equal', 'decorrelated', 'none'];
const jitter: Check = (value, name) =>
  typeof value === 'boolean'
    ? fail(name, value, `one of '${JITTERS.join("', '")}', got ${value}${kyJitter(value)}`)
    : oneOf(JITTERS)(value, name);

/** ky's `jitter: true | false` written here: a peer's name, so a development message's only. */
const kyJitter = (value: boolean): string =>
  process.env.NODE_ENV !== 'production'
    ? `: ky's \`jitter: ${value}\` is \`'${value ? 'full' : 'none'}'\` here${value ? ' (the default)' : ''}`
    : '';

/** What ours passes a callback, and how another library's callback of that name is written here. */
type CallbackAdvice = readonly [passes: string, peer?: string];

/**
 * What a development message adds to a check's own words: the fix for a count above its range, and for each
 * callback what ours passes and how a peer's is written here. A production build holds none of it (docs/errors.md
 * says it all).
 */
const ADVICE =
  process.env.NODE_ENV !== 'production'
    ? {
        retries: ': bound a long retry by time with `deadline`',
        serverRetries:
          ': this cap can be raised but not removed, or a server that keeps answering `Retry-After: 0` would keep the call going; bound a long call by time with `deadline`',
        delay: [
          'the context `{ retry, status, error, response, serverDelay, computed, ... }`',
          ": axios-retry's `retryDelay(retryCount, error)` is written `delay: ({ retry, error }) => ms`",
        ] as CallbackAdvice,
        onHold: ['the hold `{ delay, reason, key, method, url, attempt }`'] as CallbackAdvice,
        shouldRetry: [
          'the context `{ attempt, status, error, response, retryable, ... }`',
          ": exponential-backoff's `retry(error, attemptNumber)` is written `shouldRetry: ({ error, attempt }) => ...`",
        ] as CallbackAdvice,
        onRetry: [
          'the event `{ retry, delay, error, status, url, ... }`',
          ": axios-retry's `onRetry(retryCount, error, requestConfig)` is written `onRetry: ({ retry, error, url }) => ...`",
        ] as CallbackAdvice,
        onHedge: ['the hedge `{ copy, delay, method, url, attempt }`'] as CallbackAdvice,
        beforeAttempt: [
          'the context `{ attempt, retry, copy, previous, headers, signal, ... }`',
        ] as CallbackAdvice,
      }
    : undefined;

/**
 * A callback of one parameter. One of more was written for another library (axios-retry's `onRetry(retryCount,
 * error, requestConfig)`): it would read the wrong thing from what ours passes, in silence, so it is refused when
 * given, saying what ours passes and how the peer's is written here (`advice`, in development).
 */
const callback =
  (advice?: CallbackAdvice): Check =>
  (value, name) =>
    fn(value, name) && (value as (...args: never[]) => unknown).length > 1
      ? fail(
          name,
          value,
          `a function of one parameter, ${advice?.[0]}, got a function of ${(value as () => unknown).length} parameters${advice?.[1] ?? ''}`,
        )
      : value;
const methods = list(
  (m) => typeof m === 'string' && TOKEN.test(m),
  'method names',
  TypeError,
  JSON.stringify,
);
// `circuitBreaker` and `metrics` take an instance or `false`: a bundler can leave a feature's code out only when the
// user's own import brings it in, which `true` or a plain options object would not.
const breaker = withMethods(['feature', 'listen', 'toJSON'], true, 'a `new CircuitBreaker()`');
const metrics = withMethods(['feature', 'snapshot'], true, 'a `new BackoffMetrics()`');
const pacer = withMethods(['feature', 'nextSend'], true, 'a `new Pacer()`');
const hedge = withMethods(['strategy'], true, "a `new Hedge({ delay: ms | 'auto', max? })`");

/** Every option and its check (not the peer names: those are only there to be refused). */
const CHECKS: Readonly<Record<Exclude<keyof BackoffOptions, keyof PeerOptionNames>, Check | null>> = {
  retries: range(100, 0, 'an integer', ADVICE?.retries),
  serverRetries: range(100, 0, 'an integer', ADVICE?.serverRetries),
  baseDelay: delay,
  maxDelay: longest,
  factor: range(100, 1),
  jitter,
  delay: callback(ADVICE?.delay),
  statusCodes: list(
    (c) => Number.isInteger(c) && (c as number) >= 100 && (c as number) <= 599,
    'integers from 100 to 599',
    RangeError,
  ),
  methods: (value, name) => new Set([...(methods(value, name) as Set<string>)].map((m) => m.toUpperCase())),
  idempotencyKeyHeader: (value, name) =>
    typeof value === 'string' && TOKEN.test(value)
      ? value
      : fail(name, value, `a header name, got ${describeValue(value)}`),
  idempotencyKey: (value, name) =>
    typeof value === 'function' || value === 'auto' || value === false
      ? value
      : fail(name, value, `'auto', a function or false, got ${describeValue(value)}`),
  maxRetryAfter: longest,
  // 10 x every window is far wider than any herd needs: a larger value is a typo.
  retryAfterSpread: range(10),
  deadline: orInfinity(delay),
  retryOnTimeout: bool,
  shouldRetryHeaders: bool,
  network: withMethods(['isOnline', 'onOnline'], true),
  // Checked here, with the others; `resolveBudget` makes the budget (it is no resolved option).
  budget: checkBudget,
  circuitBreaker: breaker,
  metrics,
  pacer,
  onHold: callback(ADVICE?.onHold),
  shouldRetry: callback(ADVICE?.shouldRetry),
  onRetry: callback(ADVICE?.onRetry),
  hedge,
  onHedge: callback(ADVICE?.onHedge),
  beforeAttempt: callback(ADVICE?.beforeAttempt),
  attemptTimeout: orInfinity(range(MAX_TIMER_DELAY, 1)),
  tracer: withMethods(['startSpan'], false, "an OpenTelemetry Tracer (`trace.getTracer('my-app')`)"),
  redactQueryParams: list(
    (p) => typeof p === 'string' && p !== '',
    "query parameter names (`['token']`)",
    TypeError,
    JSON.stringify,
  ),
  resume: checkResume,
  random: fn,
  now: fn,
  timers: withMethods(['setTimeout', 'clearTimeout']),
};

/** A budget option turned into the budget it stands for (the RetryBudget constructor checks options). */
export function resolveBudget(value: BackoffOptions['budget']): RetryBudget | undefined {
  return value === false ? undefined : isRetryBudget(value) ? value : new RetryBudget(value);
}

/**
 * The error for a `baseDelay` above `maxDelay`, blaming the one the caller set: when the other is a default (or
 * the policy's own), the fix is to change that one too.
 */
function delaysApart(
  baseDelay: number,
  maxDelay: number,
  given: BackoffOptions,
  base?: ResolvedOptions,
): string {
  const other = base === undefined ? 'the default' : "the policy's";
  if (given.baseDelay === undefined) {
    return `\`maxDelay\` (${maxDelay}) is below ${other} \`baseDelay\` (${baseDelay}): lower \`baseDelay\` too.`;
  }
  if (given.maxDelay === undefined) {
    return `\`baseDelay\` (${baseDelay}) is above ${other} \`maxDelay\` (${maxDelay}): raise \`maxDelay\` too.`;
  }
  return `Expected \`baseDelay\` to be at most \`maxDelay\` (${maxDelay}), got ${baseDelay}.`;
}

/**
 * Validates `options` and lays them over `base` (the defaults when absent). `undefined` values are skipped so an
 * explicit `undefined` never erases a default. Throws a TypeError / RangeError naming every bad option at once.
 */
export function resolveOptions(options: BackoffOptions | undefined, base?: ResolvedOptions): ResolvedOptions {
  const problems: unknown[] = [];
  const { budget: _, ...valid } = checked(
    options === undefined ? {} : options,
    CHECKS,
    'backoff',
    'the backoff options to be an object',
    '',
    process.env.NODE_ENV !== 'production' ? peerOptionHint : undefined,
    problems,
  );
  const resolved = {
    ...(base ?? {
      ...DEFAULTS,
      statusCodes: new Set(DEFAULT_STATUS_CODES),
      methods: new Set(DEFAULT_METHODS),
      idempotencyKey: false,
      delay: undefined,
      deadline: undefined,
      network: browserNetworkStatus(),
      shouldRetry: undefined,
      onRetry: undefined,
      hedge: undefined,
      onHedge: undefined,
      beforeAttempt: undefined,
      attemptTimeout: undefined,
      tracer: undefined,
      redactQueryParams: new Set(),
      resume: undefined,
      pacer: undefined,
      onHold: undefined,
      random: defaultRandom,
      now: defaultNow,
      timers: defaultTimers,
    }),
    ...valid,
  } as ResolvedOptions;
  const { baseDelay, maxDelay } = resolved;
  // Compared only when both were valid: a bad one is reported already.
  const bad = (key: string) =>
    (options as Record<string, unknown> | undefined)?.[key] !== undefined && !(key in valid);
  if (baseDelay > maxDelay && !bad('baseDelay') && !bad('maxDelay')) {
    problems.push(
      new RangeError(
        process.env.NODE_ENV !== 'production'
          ? delaysApart(baseDelay, maxDelay, options ?? {}, base)
          : briefly('delays-apart', 'baseDelay', baseDelay),
      ),
    );
  }
  report(problems, 'backoff');
  return resolved;
}
