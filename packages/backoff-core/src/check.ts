/**
 * The option checker shared by `createBackoff` and `RetryBudget`: a table maps each option to a check, and
 * a check returns the value to keep or throws a TypeError / RangeError whose message names the option. Tables
 * rather than hand-written code per option: the checks are what a frontend bundle carries for every client.
 */

import { describeValue } from './show.js';

/** Checks one given (not `undefined`) value of the option `name`: returns what to keep, or throws. */
export type Check = (value: unknown, name: string) => unknown;

/** setTimeout clamps anything above 2^31 - 1 ms to 1 ms, so no delay option may exceed it. */
export const MAX_TIMER_DELAY = 2_147_483_647;

export function fail(name: string, expected: string, Kind: typeof TypeError = TypeError): never {
  throw new Kind(`Expected \`${name}\` to be ${expected}.`);
}

/** A number in [min, max] (NaN never is); an integer when `kind` says so. */
export const range =
  (max = MAX_TIMER_DELAY, min = 0, kind = 'a number'): Check =>
  (value, name) =>
    typeof value !== 'number'
      ? fail(name, `a number, got ${describeValue(value)}`)
      : value >= min && value <= max && (kind === 'a number' || Number.isInteger(value))
        ? value
        : fail(name, `${kind} from ${min} to ${max}, got ${value}`, RangeError);

/** A function. */
export const fn: Check = (value, name) =>
  typeof value === 'function' ? value : fail(name, `a function, got ${describeValue(value)}`);

/** One of `values` (compared with `===`); `expected` says so in the error (by default: one of the values, quoted). */
export const oneOf =
  (values: readonly unknown[], expected = `one of '${values.join("', '")}'`): Check =>
  (value, name) =>
    values.includes(value) ? value : fail(name, `${expected}, got ${describeValue(value)}`);

/** An object (or function) with the methods `names`; `false` for none (`undefined`) when `off` says so. */
export const withMethods =
  (
    names: readonly string[],
    off?: boolean,
    expected = `an object with ${names.join(' and ')} functions`,
  ): Check =>
  (value, name) =>
    off && value === false
      ? undefined
      : names.every((method) => typeof (value as Record<string, unknown> | null)?.[method] === 'function')
        ? value
        : fail(name, `${off ? `false or ${expected}` : expected}, got ${describeValue(value)}`);

/**
 * Checks the options in `given` with `checks` and returns the valid ones (`undefined` values skipped, so an
 * explicit `undefined` never erases a default). An option without a check (`null`) is validated elsewhere.
 * `what` names the options in the error for an unknown key, `prefix` goes before each option's name, and
 * `notObject` completes "Expected ..." when `given` is no options object; `hint` adds advice for an unknown key.
 */
export function checked(
  given: unknown,
  checks: Readonly<Record<string, Check | null>>,
  what: string,
  notObject: string,
  prefix = '',
  hint?: (key: string) => string | undefined,
): Record<string, unknown> {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new TypeError(`Expected ${notObject}, got ${describeValue(given)}.`);
  }
  const valid: Record<string, unknown> = {};
  const keys = Object.keys(given);
  // A misspelt name is reported first, whatever else is wrong. Own keys only: `__proto__` is no option.
  for (const key of keys) {
    if (!Object.hasOwn(checks, key)) {
      const advice = hint?.(key);
      throw new TypeError(`Unknown ${what} option \`${prefix}${key}\`${advice ? `: ${advice}` : ''}.`);
    }
  }
  for (const key of keys) {
    const value = (given as Record<string, unknown>)[key];
    const check = checks[key];
    if (value !== undefined && check) valid[key] = check(value, prefix + key);
  }
  return valid;
}
