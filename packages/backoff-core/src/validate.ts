import { isRetryBudget, RetryBudget } from './budget.js';
import { browserNetworkStatus, type NetworkStatus } from './network.js';
import {
  type BackoffOptions,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  DEFAULTS,
  type Jitter,
  type ResolvedOptions,
} from './options.js';
import { show } from './show.js';
import { defaultTimers } from './sleep.js';

/** setTimeout clamps anything above 2^31 - 1 ms to 1 ms, so no delay option may exceed it. */
export const MAX_TIMER_DELAY = 2_147_483_647;

// Arrow functions, not references, so fake timers and spies installed later still take effect.
const defaultRandom = (): number => Math.random();
const defaultNow = (): number => Date.now();

const JITTERS: readonly Jitter[] = ['full', 'equal', 'decorrelated', 'none'];
const OPTION_NAMES: ReadonlySet<string> = new Set([
  'retries',
  'baseDelay',
  'maxDelay',
  'factor',
  'jitter',
  'statusCodes',
  'methods',
  'idempotencyKeyHeader',
  'idempotencyKey',
  'maxRetryAfter',
  'deadline',
  'retryOnTimeout',
  'shouldRetryHeaders',
  'network',
  'budget',
  'circuitBreaker',
  'metrics',
  'shouldRetry',
  'onRetry',
  'random',
  'now',
  'timers',
]);
// RFC 9110 token characters: what a method or a header name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function fail(name: string, expected: string, Kind: typeof TypeError | typeof RangeError): never {
  throw new Kind(`Expected \`${name}\` to be ${expected}.`);
}

function number(
  name: string,
  value: unknown,
  { integer = false, max = MAX_TIMER_DELAY, min = 0 } = {},
): number {
  if (typeof value !== 'number') fail(name, 'a number', TypeError);
  if (Number.isNaN(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    fail(name, `${kind} from ${min} to ${max}, got ${value}`, RangeError);
  }
  return value;
}

function fn<T>(name: string, value: unknown): T {
  if (typeof value !== 'function') fail(name, 'a function', TypeError);
  return value as T;
}

function statusCodes(value: unknown): ReadonlySet<number> {
  if (!Array.isArray(value)) fail('statusCodes', 'an array of status codes', TypeError);
  for (const code of value) {
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 100 || code > 599) {
      fail('statusCodes', `an array of integers from 100 to 599, got ${show(code)}`, RangeError);
    }
  }
  return new Set(value as number[]);
}

function methods(value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value)) fail('methods', 'an array of method names', TypeError);
  for (const method of value) {
    if (typeof method !== 'string' || !TOKEN.test(method)) {
      fail('methods', `an array of method names, got ${show(method, JSON.stringify)}`, TypeError);
    }
  }
  return new Set((value as string[]).map((method) => method.toUpperCase()));
}

/**
 * `circuitBreaker` and `metrics` take an instance or `false` (issue 15): a bundler can leave a feature's code out
 * only when the user's own import brings it in, which `true` or a plain options object would not.
 */
function watchable<T>(value: unknown, name: string): T | undefined {
  if (value !== false && typeof (value as { watcher?: unknown } | null)?.watcher !== 'function') {
    fail(name, 'an instance (`new CircuitBreaker()`, `new BackoffMetrics()`) or false', TypeError);
  }
  return (value || undefined) as T | undefined;
}

/** A budget option turned into the budget it stands for: `undefined` means "a new default one". */
export function resolveBudget(value: BackoffOptions['budget']): RetryBudget | undefined {
  if (value === false) return undefined;
  if (value === undefined) return new RetryBudget();
  if (isRetryBudget(value)) return value;
  if (typeof value !== 'object' || value === null) {
    fail('budget', 'a RetryBudget, RetryBudget options or false', TypeError);
  }
  return new RetryBudget(value);
}

/**
 * Validates `options` and lays them over `base` (the defaults when absent). `undefined` values are skipped so an
 * explicit `undefined` never erases a default. Throws a TypeError / RangeError naming the first bad option.
 */
export function resolveOptions(options: BackoffOptions | undefined, base?: ResolvedOptions): ResolvedOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError('Expected the backoff options to be an object.');
  }
  const given = (options ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!OPTION_NAMES.has(key)) throw new TypeError(`Unknown backoff option \`${key}\`.`);
  }
  const pick = <T>(key: keyof BackoffOptions, check: (value: unknown, key: string) => T, fallback: T): T =>
    given[key] === undefined ? fallback : check(given[key], key);

  const retries = pick(
    'retries',
    (v) => number('retries', v, { integer: true, max: 100 }),
    base?.retries ?? DEFAULTS.retries,
  );
  const baseDelay = pick('baseDelay', (v) => number('baseDelay', v), base?.baseDelay ?? DEFAULTS.baseDelay);
  const maxDelay = pick('maxDelay', (v) => number('maxDelay', v), base?.maxDelay ?? DEFAULTS.maxDelay);
  if (baseDelay > maxDelay) {
    throw new RangeError(`Expected \`baseDelay\` (${baseDelay}) to be at most \`maxDelay\` (${maxDelay}).`);
  }
  const factor = pick(
    'factor',
    (v) => number('factor', v, { min: 1, max: 100 }),
    base?.factor ?? DEFAULTS.factor,
  );
  const jitter = pick(
    'jitter',
    (v) => {
      if (!JITTERS.includes(v as Jitter))
        fail('jitter', `one of ${JITTERS.map((j) => `'${j}'`).join(', ')}`, TypeError);
      return v as Jitter;
    },
    base?.jitter ?? DEFAULTS.jitter,
  );
  const idempotencyKeyHeader = pick(
    'idempotencyKeyHeader',
    (v) => {
      if (typeof v !== 'string' || !TOKEN.test(v)) fail('idempotencyKeyHeader', 'a header name', TypeError);
      return v;
    },
    base?.idempotencyKeyHeader ?? DEFAULTS.idempotencyKeyHeader,
  );
  const idempotencyKey = pick(
    'idempotencyKey',
    (v): ResolvedOptions['idempotencyKey'] => {
      if (v === 'auto' || v === false || typeof v === 'function')
        return v as ResolvedOptions['idempotencyKey'];
      return fail('idempotencyKey', "'auto', a function returning a key, or false", TypeError);
    },
    base?.idempotencyKey ?? false,
  );
  const retryOnTimeout = pick(
    'retryOnTimeout',
    (v) => (typeof v === 'boolean' ? v : fail('retryOnTimeout', 'a boolean', TypeError)),
    base?.retryOnTimeout ?? DEFAULTS.retryOnTimeout,
  );
  const shouldRetryHeaders = pick(
    'shouldRetryHeaders',
    (v) => (typeof v === 'boolean' ? v : fail('shouldRetryHeaders', 'a boolean', TypeError)),
    base?.shouldRetryHeaders ?? DEFAULTS.shouldRetryHeaders,
  );
  const network = pick(
    'network',
    (v): NetworkStatus | undefined => {
      if (v === false) return undefined;
      const n = v as Partial<NetworkStatus> | null;
      if (
        typeof n !== 'object' ||
        n === null ||
        typeof n.isOnline !== 'function' ||
        typeof n.onOnline !== 'function'
      ) {
        fail('network', 'false or an object with isOnline and onOnline functions', TypeError);
      }
      return v as NetworkStatus;
    },
    // An override that leaves `network` out keeps the base's, including a base that turned it off.
    base === undefined ? browserNetworkStatus() : base.network,
  );
  const timers = pick(
    'timers',
    (v) => {
      const t = v as Partial<ResolvedOptions['timers']> | null;
      if (
        typeof t !== 'object' ||
        t === null ||
        typeof t.setTimeout !== 'function' ||
        typeof t.clearTimeout !== 'function'
      ) {
        fail('timers', 'an object with setTimeout and clearTimeout functions', TypeError);
      }
      return v as ResolvedOptions['timers'];
    },
    base?.timers ?? defaultTimers,
  );

  return {
    retries,
    baseDelay,
    maxDelay,
    factor,
    jitter,
    statusCodes: pick('statusCodes', statusCodes, base?.statusCodes ?? new Set(DEFAULT_STATUS_CODES)),
    methods: pick('methods', methods, base?.methods ?? new Set(DEFAULT_METHODS)),
    idempotencyKeyHeader,
    idempotencyKey,
    maxRetryAfter: pick(
      'maxRetryAfter',
      (v) => number('maxRetryAfter', v),
      base?.maxRetryAfter ?? DEFAULTS.maxRetryAfter,
    ),
    deadline: pick('deadline', (v) => number('deadline', v), base?.deadline),
    retryOnTimeout,
    shouldRetryHeaders,
    network,
    circuitBreaker: pick(
      'circuitBreaker',
      watchable<ResolvedOptions['circuitBreaker']>,
      base?.circuitBreaker,
    ),
    metrics: pick('metrics', watchable<ResolvedOptions['metrics']>, base?.metrics),
    shouldRetry: pick(
      'shouldRetry',
      (v) => fn<ResolvedOptions['shouldRetry']>('shouldRetry', v),
      base?.shouldRetry,
    ),
    onRetry: pick('onRetry', (v) => fn<ResolvedOptions['onRetry']>('onRetry', v), base?.onRetry),
    random: pick('random', (v) => fn<() => number>('random', v), base?.random ?? defaultRandom),
    now: pick('now', (v) => fn<() => number>('now', v), base?.now ?? defaultNow),
    timers,
  };
}
