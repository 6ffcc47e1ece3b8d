import { isRetryBudget } from 'backoff-core/adapter';

// An independent reading of the documented option rules (backoff-core README, "Options"), written from the
// docs, not from validate.ts: the fuzz compares the two.

const MAX_TIMER = 2_147_483_647;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const JITTERS = ['full', 'equal', 'decorrelated', 'none'];

const isNumberIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && value >= min && value <= max;
const isFunction = (value: unknown) => typeof value === 'function';

/** Whether one option's value is valid on its own. `undefined` always is (it keeps the default). */
export function validOption(name: string, value: unknown): boolean {
  if (value === undefined) return true;
  switch (name) {
    case 'retries':
      return isNumberIn(value, 0, 100) && Number.isInteger(value);
    case 'baseDelay':
    case 'maxDelay':
    case 'maxRetryAfter':
    case 'deadline':
      return isNumberIn(value, 0, MAX_TIMER);
    case 'factor':
      return isNumberIn(value, 1, 100);
    case 'jitter':
      return JITTERS.includes(value as string);
    case 'statusCodes':
      return (
        Array.isArray(value) &&
        [...value].every((code) => isNumberIn(code, 100, 599) && Number.isInteger(code))
      );
    case 'methods':
      return (
        Array.isArray(value) && [...value].every((method) => typeof method === 'string' && TOKEN.test(method))
      );
    case 'idempotencyKeyHeader':
      return typeof value === 'string' && TOKEN.test(value);
    case 'idempotencyKey':
      return value === 'auto' || value === false || isFunction(value);
    case 'retryOnTimeout':
      return typeof value === 'boolean';
    case 'budget':
      return validBudget(value);
    case 'shouldRetry':
    case 'onRetry':
    case 'random':
    case 'now':
      return isFunction(value);
    case 'timers': {
      const timers = value as { setTimeout?: unknown; clearTimeout?: unknown } | null;
      return (
        typeof timers === 'object' &&
        timers !== null &&
        isFunction(timers.setTimeout) &&
        isFunction(timers.clearTimeout)
      );
    }
    default:
      return false;
  }
}

/**
 * `false`, a RetryBudget (by shape), or `{ reserve?, ratio?, throttlingCost? }` (null or undefined keeps a field's
 * default).
 */
function validBudget(value: unknown): boolean {
  if (value === false || isRetryBudget(value)) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { reserve, ratio, throttlingCost, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return false;
  const okReserve = reserve == null || (isNumberIn(reserve, 0, 1e9) && Number.isInteger(reserve));
  const okRatio = ratio == null || isNumberIn(ratio, 0, 1);
  const okThrottlingCost = throttlingCost == null || isNumberIn(throttlingCost, 0, 1);
  return okReserve && okRatio && okThrottlingCost;
}

export const OPTION_NAMES = [
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
  'budget',
  'shouldRetry',
  'onRetry',
  'random',
  'now',
  'timers',
] as const;

/**
 * What the docs say of a whole options object laid over `base` (the defaults, or a policy's resolved options
 * for `extend`): the names one of which a TypeError/RangeError must give, or `[]` when it must be accepted. An
 * unknown key (reported before anything else), an invalid value, or a `baseDelay` above the `maxDelay` it will
 * run with (given or inherited) is an error.
 */
export function offendingNames(
  options: Record<string, unknown>,
  base: { baseDelay: number; maxDelay: number } = { baseDelay: 1000, maxDelay: 30_000 },
): string[] {
  const names = new Set<string>(OPTION_NAMES);
  const unknown = Object.keys(options).filter((key) => !names.has(key));
  if (unknown.length > 0) return unknown;
  const invalid = Object.keys(options).filter((key) => !validOption(key, options[key]));
  // The two delays are compared only when both are valid numbers; either error may be the one reported.
  if (validOption('baseDelay', options.baseDelay) && validOption('maxDelay', options.maxDelay)) {
    const baseDelay = (options.baseDelay as number | undefined) ?? base.baseDelay;
    const maxDelay = (options.maxDelay as number | undefined) ?? base.maxDelay;
    if (baseDelay > maxDelay) invalid.push('baseDelay', 'maxDelay');
  }
  return invalid;
}
