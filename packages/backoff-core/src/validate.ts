import { isRetryBudget, RetryBudget } from './budget.js';
import { type Check, checked, fail, fn, oneOf, range, withMethods } from './check.js';
import { checkHedge, ResponseTimes } from './hedge.js';
import { browserNetworkStatus } from './network.js';
import {
  type BackoffOptions,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  DEFAULTS,
  type ResolvedOptions,
} from './options.js';
import { unknownOptionHint } from './peer-names.js';
import { describeValue, show } from './show.js';
import { defaultTimers } from './sleep.js';

export { MAX_TIMER_DELAY } from './check.js';

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
    if (!Array.isArray(value)) fail(name, `an array of ${items}, got ${describeValue(value)}`);
    for (const item of value)
      if (!valid(item)) fail(name, `an array of ${items}, got ${show(item, describe)}`, Kind);
    return new Set(value);
  };

// Arrow functions, not references, so fake timers and spies installed later still take effect.
const defaultRandom = (): number => Math.random();
const defaultNow = (): number => Date.now();

const delay = range();
const bool = oneOf([true, false], 'a boolean');
const methods = list(
  (m) => typeof m === 'string' && TOKEN.test(m),
  'method names',
  TypeError,
  JSON.stringify,
);
// `circuitBreaker` and `metrics` take an instance or `false`: a bundler can leave a feature's code out only when the
// user's own import brings it in, which `true` or a plain options object would not.
const breaker = withMethods(['watcher', 'listen', 'toJSON'], true, 'a `new CircuitBreaker()`');
const metrics = withMethods(['watcher', 'snapshot'], true, 'a `new BackoffMetrics()`');
const pacer = withMethods(['watcher', 'nextSend'], true, 'a `new Pacer()`');

/** Every option and its check. `budget` is checked by `resolveBudget` (it is no resolved option). */
const CHECKS: Readonly<Record<keyof BackoffOptions, Check | null>> = {
  retries: range(100, 0, 'an integer'),
  baseDelay: delay,
  maxDelay: delay,
  factor: range(100, 1),
  jitter: oneOf(['full', 'equal', 'decorrelated', 'none']),
  delay: fn,
  statusCodes: list(
    (c) => Number.isInteger(c) && (c as number) >= 100 && (c as number) <= 599,
    'integers from 100 to 599',
    RangeError,
  ),
  methods: (value, name) => new Set([...(methods(value, name) as Set<string>)].map((m) => m.toUpperCase())),
  idempotencyKeyHeader: (value, name) =>
    typeof value === 'string' && TOKEN.test(value)
      ? value
      : fail(name, `a header name, got ${describeValue(value)}`),
  idempotencyKey: (value, name) =>
    typeof value === 'function' || value === 'auto' || value === false
      ? value
      : fail(name, `'auto', a function or false, got ${describeValue(value)}`),
  maxRetryAfter: delay,
  deadline: delay,
  retryOnTimeout: bool,
  shouldRetryHeaders: bool,
  network: withMethods(['isOnline', 'onOnline'], true),
  budget: null,
  circuitBreaker: breaker,
  metrics,
  pacer,
  onHold: fn,
  shouldRetry: fn,
  onRetry: fn,
  hedge: checkHedge,
  onHedge: fn,
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
 * explicit `undefined` never erases a default. Throws a TypeError / RangeError naming the first bad option.
 */
export function resolveOptions(options: BackoffOptions | undefined, base?: ResolvedOptions): ResolvedOptions {
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
      // One per policy, shared by its per-request extensions: they learn from each other's answers.
      responseTimes: new ResponseTimes(),
      pacer: undefined,
      onHold: undefined,
      random: defaultRandom,
      now: defaultNow,
      timers: defaultTimers,
    }),
    ...checked(
      options === undefined ? {} : options,
      CHECKS,
      'backoff',
      'the backoff options to be an object',
      '',
      (key) => unknownOptionHint(key, Object.keys(CHECKS)),
    ),
  } as ResolvedOptions;
  const { baseDelay, maxDelay } = resolved;
  if (baseDelay > maxDelay) throw new RangeError(delaysApart(baseDelay, maxDelay, options ?? {}, base));
  return resolved;
}
