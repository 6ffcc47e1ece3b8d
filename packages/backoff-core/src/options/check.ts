/**
 * The option checker shared by `createBackoff` and `RetryBudget`: a table maps each option to a check, and
 * a check returns the value to keep or throws a TypeError / RangeError whose message names the option. Tables
 * rather than hand-written code per option: the checks are what a frontend bundle carries for every client.
 */

import { describeValue, show } from './show.js';

// Bundlers replace `process.env.NODE_ENV` (the package's Node build reads it through `globalThis.process?.`), so
// every use below is written out in full: a production bundle then drops the text and the tables it guards.
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** docs/errors.md, where each code's full explanation is: a production build's messages link there. */
export const ERRORS_URL = 'https://github.com/backoff/backoff/blob/main/docs/errors.md';

/** The codes of docs/errors.md: each is the anchor of its explanation there. */
export const ERROR_CODES = [
  'options-not-object',
  'unknown-option',
  'bad-option',
  'delays-apart',
  'bad-return',
  'bad-key',
  'key-lost',
  'bad-header',
  'not-a-client',
  'already-installed',
  'attempt-timeout',
  'peer-attached',
  'peer-settings',
] as const;
/** A code of docs/errors.md, in a production build's message: `bad-option`, `unknown-option`, ... */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * A production build's message: the option (or argument) `name`, what it got, and the link to the code's full
 * explanation, e.g. "`retries` got 200 (bad-option): https://.../errors.md#bad-option".
 */
export function briefly(code: ErrorCode, name: string, got: unknown): string {
  return `\`${name}\` got ${describeValue(got)} (${code}): ${ERRORS_URL}#${code}`;
}

/** Checks one given (not `undefined`) value of the option `name`: returns what to keep, or throws. */
export type Check = (value: unknown, name: string) => unknown;

/** setTimeout clamps anything above 2^31 - 1 ms to 1 ms, so no delay option may exceed it. */
export const MAX_TIMER_DELAY = 2_147_483_647;

/**
 * Throws the error for the option `name`, which `got` a value it does not take: in development the message says what
 * was `expected` (and what was got, the fix); in production it is `briefly`'s.
 */
export function fail(
  name: string,
  got: unknown,
  expected: string,
  Kind: typeof TypeError = TypeError,
): never {
  throw new Kind(
    process.env.NODE_ENV !== 'production'
      ? `Expected \`${name}\` to be ${expected}.`
      : briefly('bad-option', name, got),
  );
}

/**
 * A number in [min, max] (NaN never is); an integer when `kind` says so. `fix` ends the error of a number above
 * `max` (what to write for "more" instead).
 */
export const range =
  (max = MAX_TIMER_DELAY, min = 0, kind = 'a number', fix = ''): Check =>
  (value, name) =>
    typeof value !== 'number'
      ? fail(name, value, `a number, got ${describeValue(value)}`)
      : value >= min && value <= max && (kind === 'a number' || Number.isInteger(value))
        ? value
        : fail(
            name,
            value,
            `${kind} from ${min} to ${max}, got ${value}${value > max ? fix : ''}`,
            RangeError,
          );

/**
 * `check`, where `Infinity` (no limit, as ky, exponential-backoff and p-retry spell it) is accepted and kept as
 * `unlimited`: the longest timer for a limit on waits, `undefined` for one that is off.
 */
export const orInfinity =
  (check: Check, unlimited?: number): Check =>
  (value, name) =>
    value === Number.POSITIVE_INFINITY ? unlimited : check(value, name);

/** A function. */
export const fn: Check = (value, name) =>
  typeof value === 'function' ? value : fail(name, value, `a function, got ${describeValue(value)}`);

/** One of `values` (compared with `===`); `expected` says so in the error (by default: one of the values, quoted). */
export const oneOf =
  (values: readonly unknown[], expected = `one of '${values.join("', '")}'`): Check =>
  (value, name) =>
    values.includes(value) ? value : fail(name, value, `${expected}, got ${describeValue(value)}`);

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
        : fail(name, value, `${off ? `false or ${expected}` : expected}, got ${describeValue(value)}`);

/** An error listing several bad options: each one's own error is in `errors`, in the order of the options. */
type BadOptionsError = (TypeError | RangeError) & { readonly errors: readonly Error[] };

/** Runs `check`, keeping its error in `problems` (each of them, for an error that lists several). */
function collect<T>(problems: unknown[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    problems.push(...((error as Partial<BadOptionsError> | null)?.errors ?? [error]));
    return undefined;
  }
}

/**
 * Throws the `problems` found in `what` options, all at once so that one run shows every fix: one problem as
 * itself, several as one error (a RangeError when every one is, else a TypeError) whose message lists each.
 */
export function report(problems: readonly unknown[], what: string): void {
  if (problems.length === 1) throw problems[0];
  if (problems.length === 0) return;
  const Kind = problems.every((problem) => problem instanceof RangeError) ? RangeError : TypeError;
  const list = problems.map((problem) => `\n- ${(problem as Error | null)?.message ?? show(problem)}`);
  throw Object.assign(new Kind(`${problems.length} ${what} options are wrong:${list.join('')}`), {
    errors: problems,
  });
}

/**
 * The edit distance of two names: insertions, deletions, substitutions and swaps of two neighbours count 1 each
 * (`retires` is 1 from `retries`). Short names in small tables: the plain quadratic table is enough.
 */
function distance(a: string, b: string): number {
  const width = b.length + 1;
  // d[i * width + j]: the distance between the first i letters of a and the first j of b.
  const d: number[] = [];
  const at = (i: number, j: number) => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) {
    for (let j = 0; j <= b.length; j++) {
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      d[i * width + j] =
        i === 0 || j === 0
          ? i + j
          : Math.min(
              at(i - 1, j) + 1,
              at(i, j - 1) + 1,
              at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
              swapped ? at(i - 2, j - 2) + 1 : Number.POSITIVE_INFINITY,
            );
    }
  }
  return at(a.length, b.length);
}

/**
 * Advice for an unknown option name `key`: the known name it differs from only in case, or the nearest known name
 * within a typo or two (one for a short name) as "did you mean".
 */
function nearName(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const limit = key.length < 6 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of known) {
    if (name.toLowerCase() === lower) return `option names are case-sensitive: use \`${name}\``;
    // Lengths further apart than the limit cannot be near (and a long key costs nothing).
    const d = Math.abs(name.length - key.length) > limit ? limit + 1 : distance(lower, name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best === undefined ? undefined : `did you mean \`${best}\`?`;
}

/** The development message for an unknown option (`subject`), with the advice found for it. */
function unknownOption(subject: string, advice: string | undefined): string {
  return `Unknown ${subject}${advice === undefined ? '.' : `: ${advice}${advice.endsWith('?') ? '' : '.'}`}`;
}

/**
 * Checks the options in `given` with `checks` and returns the valid ones (`undefined` values skipped, so an
 * explicit `undefined` never erases a default). An option without a check (`null`) is validated elsewhere.
 * `what` names the options in the error for an unknown key, `prefix` goes before each option's name, and
 * `notObject` completes "Expected ..." when `given` is no options object; `hint` adds advice for an unknown key
 * (else a near known name is suggested). Every bad option is reported at once (see `report`); `problems`, when
 * given, collects them instead, for a caller that has more to check.
 */
export function checked(
  given: unknown,
  checks: Readonly<Record<string, Check | null>>,
  what: string,
  notObject: string,
  prefix = '',
  hint?: (key: string) => string | undefined,
  problems?: unknown[],
): Record<string, unknown> {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected ${notObject}, got ${describeValue(given)}.`
        : briefly('options-not-object', prefix.slice(0, -1) || `${what} options`, given),
    );
  }
  const found: unknown[] = problems ?? [];
  const valid: Record<string, unknown> = {};
  // Own keys only: `__proto__` is no option.
  for (const key of Object.keys(given)) {
    const check = checks[key];
    collect(found, () => {
      const value = (given as Record<string, unknown>)[key];
      if (!Object.hasOwn(checks, key)) {
        // Other libraries' names and near misses are advice for a developer: a production build carries neither.
        throw new TypeError(
          process.env.NODE_ENV !== 'production'
            ? unknownOption(
                `${what} option \`${prefix}${key}\``,
                hint?.(key) ?? nearName(key, Object.keys(checks)),
              )
            : briefly('unknown-option', prefix + key, value),
        );
      }
      if (value !== undefined && check) valid[key] = check(value, prefix + key);
    });
  }
  if (problems === undefined) report(found, what);
  return valid;
}
