import { type BackoffOptions, createBackoff, parseRetryAfter, RetryBudget } from 'backoff-core';
import { decide, headerGetter, isRetryBudget, parseHttpDate, startCall } from 'backoff-core/adapter';
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  anyHeaders,
  anyNow,
  anyOptions,
  asctime,
  headerName,
  headerRecord,
  headerText,
  imfFixdate,
  instant,
  rfc850,
  VALID,
} from './arbitraries.ts';
import { OPTION_NAMES, offendingNames } from './options-oracle.ts';
import { OVERRIDE_TARGETS } from './override-targets.ts';

/** fast-check's run parameters: how many cases, and (for a reproducible run) the seed. */
export interface FuzzRun {
  readonly numRuns: number;
  readonly seed?: number;
}

/** A property and its name; `run(parameters)` checks it (async ones return a promise). */
export interface FuzzProperty {
  readonly name: string;
  run(parameters: FuzzRun): void | Promise<void>;
}

const YEAR = 365.2425 * 24 * 3600 * 1000;

/** A delay as the parser may return it. */
function isDelay(value: unknown): boolean {
  return (
    value === undefined ||
    (typeof value === 'number' && !Number.isNaN(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER)
  );
}

/** The error a bad option must give: a TypeError or RangeError whose message names one of `names`. */
function expectNamingError(error: unknown, names: readonly string[]): void {
  expect(error instanceof TypeError || error instanceof RangeError, String(error)).toBe(true);
  const message = (error as Error).message;
  expect(
    names.some((name) => message.includes(`\`${name}\``) || message.includes(`\`${name}.`)),
    `${message} should name one of ${names.join(', ')}`,
  ).toBe(true);
}

/** What a policy resolved from `given` (valid) must hold: every given value, every default otherwise. */
function expectResolved(options: Record<string, unknown>, given: Record<string, unknown>): void {
  for (const name of OPTION_NAMES) {
    const value = given[name];
    if (value === undefined || name === 'budget') continue;
    const resolved = options[name];
    if (name === 'statusCodes')
      expect([...(resolved as Set<number>)]).toEqual([...new Set(value as number[])]);
    else if (name === 'methods')
      expect([...(resolved as Set<string>)]).toEqual([
        ...new Set((value as string[]).map((method) => method.toUpperCase())),
      ]);
    else expect(resolved).toBe(value);
  }
}

/** The first decision on a retryable 503 is sane whatever the (valid) options: a bounded delay, or a reason. */
function expectSaneDecision(policy: ReturnType<typeof createBackoff>): void {
  const { idempotencyKey, methods } = policy.options;
  if (keyGeneratorFails(idempotencyKey, methods)) {
    expect(() => startCall(policy, { method: 'GET' })).toThrow(/`idempotencyKey`/);
    return;
  }
  const call = startCall(policy, { method: 'GET', url: 'http://127.0.0.1/' });
  const decision = decide(call, { type: 'response', status: 503, headers: {} });
  // The generated shouldRetry answers at once: the decision is made at once.
  if (decision instanceof Promise) throw new TypeError('Expected a decision at once');
  if (decision.retry) {
    expect(Number.isFinite(decision.delay)).toBe(true);
    expect(decision.delay).toBeGreaterThanOrEqual(0);
    expect(decision.delay).toBeLessThanOrEqual(policy.options.maxDelay);
  } else {
    expect(decision.reason).toMatch(/^[a-z-]+$/);
  }
}

/**
 * Whether a GET needs a generated key and the generator gives none: GET is not among the methods retried without
 * a key, and the function's value is no key that can travel (the documented TypeError): a string of visible ASCII
 * that is a well-formed quoted Structured Field String, or a bare key without `"`, `\` or `,` and not starting or
 * ending with a space.
 */
function keyGeneratorFails(idempotencyKey: unknown, methods: Iterable<unknown> | undefined): boolean {
  if (typeof idempotencyKey !== 'function' || methods === undefined) return false;
  if ([...methods].some((method) => String(method).toUpperCase() === 'GET')) return false;
  const key: unknown = idempotencyKey();
  if (typeof key !== 'string' || !/^[ -~]+$/.test(key)) return true;
  if (key.startsWith('"')) return !/^"(?:[^"\\]|\\["\\])+"$/.test(key);
  return /["\\,]/.test(key) || key.trim() !== key;
}

export const PROPERTIES: readonly FuzzProperty[] = [
  {
    name: 'parseRetryAfter: any headers, any clock -> undefined or a delay in [0, MAX_SAFE_INTEGER], never a throw',
    run: (parameters) =>
      fc.assert(
        fc.property(anyHeaders, anyNow, (headers, now) => isDelay(parseRetryAfter(headers as never, now))),
        parameters,
      ),
  },
  {
    name: 'parseRetryAfter: delay-seconds (zeros, blanks, any case) is n x 1000 ms, whatever else is there',
    run: (parameters) =>
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1e9 }),
          fc.stringMatching(/^0{0,3}$/),
          fc.stringMatching(/^[ \t]{0,2}$/),
          fc.mixedCase(fc.constant('retry-after')),
          headerRecord,
          anyNow,
          (n, zeros, blank, name, others, now) => {
            const rest = Object.fromEntries(
              Object.entries(others).filter(([key]) => key.toLowerCase() !== 'retry-after'),
            );
            const headers = { ...rest, [name]: `${blank}${zeros}${n}${blank}` };
            return parseRetryAfter(headers, now) === n * 1000;
          },
        ),
        parameters,
      ),
  },
  {
    name: 'parseRetryAfter / parseHttpDate: the three HTTP-date forms give the time until that date (0 if past)',
    run: (parameters) =>
      fc.assert(
        fc.property(
          fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
          fc.integer({ min: Math.ceil(-49 * YEAR), max: Math.floor(49 * YEAR) }),
          instant,
          fc.constantFrom('imf', 'asctime', 'rfc850'),
          (now, offset, far, form) => {
            // RFC 850's two-digit year is read in the 100 years around `now`: its dates stay within 49 years.
            const date = form === 'rfc850' ? Math.floor((now + offset) / 1000) * 1000 : far;
            const text =
              form === 'imf' ? imfFixdate(date) : form === 'asctime' ? asctime(date) : rfc850(date);
            expect(parseHttpDate(text, now)).toBe(date);
            expect(parseRetryAfter({ 'Retry-After': text }, now)).toBe(Math.max(0, date - now));
          },
        ),
        parameters,
      ),
  },
  {
    name: 'parseHttpDate: any string (near-dates included) -> undefined or a valid time value, never a throw',
    run: (parameters) =>
      fc.assert(
        fc.property(
          fc.oneof(
            headerText,
            // A valid date with one character replaced: the near misses a parser gets wrong.
            fc
              .tuple(
                instant.map(imfFixdate),
                fc.nat(),
                fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
              )
              .map(
                ([text, at, char]) =>
                  text.slice(0, at % text.length) + char + text.slice((at % text.length) + 1),
              ),
          ),
          anyNow,
          (text, now) => {
            const ms = parseHttpDate(text, now);
            return ms === undefined || (Number.isInteger(ms) && Math.abs(ms) <= 8.64e15);
          },
        ),
        parameters,
      ),
  },
  {
    name: 'headerGetter: any container, any name -> undefined or a string, never a throw',
    run: (parameters) =>
      fc.assert(
        fc.property(anyHeaders, headerName, (headers, name) => {
          const value = headerGetter(headers as never)(name);
          return value === undefined || typeof value === 'string';
        }),
        parameters,
      ),
  },
  {
    name: 'headerGetter: a plain record is read case-insensitively, the exact-case key first, lists joined',
    run: (parameters) =>
      fc.assert(
        fc.property(
          fc.dictionary(
            headerName,
            fc.oneof(headerText, fc.array(headerText, { minLength: 1, maxLength: 3 })),
          ),
          headerName,
          (record, name) => {
            const key = Object.hasOwn(record, name)
              ? name
              : Object.keys(record).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
            const raw = key === undefined ? undefined : record[key];
            const expected = Array.isArray(raw) ? raw.join(', ') : raw;
            return headerGetter(record)(name) === expected;
          },
        ),
        parameters,
      ),
  },
  {
    name: 'createBackoff: any options -> a policy with exactly the options given, or a TypeError/RangeError naming one',
    run: (parameters) =>
      fc.assert(
        fc.property(anyOptions, (options) => {
          const offending = offendingNames(options);
          let policy: ReturnType<typeof createBackoff>;
          try {
            policy = createBackoff(options as BackoffOptions);
          } catch (error) {
            expect(offending.length, `threw ${String(error)} for valid options`).toBeGreaterThan(0);
            expectNamingError(error, offending);
            return;
          }
          expect(offending, 'accepted invalid options').toEqual([]);
          expectResolved(policy.options as unknown as Record<string, unknown>, options);
          const budget = options.budget;
          if (budget === false) expect(policy.budget).toBeUndefined();
          else if (isRetryBudget(budget)) expect(policy.budget).toBe(budget);
          else expect(policy.budget).toBeInstanceOf(RetryBudget);
          expectSaneDecision(policy);
        }),
        parameters,
      ),
  },
  {
    name: 'extend: any overrides over any valid policy -> the same verdicts, against the inherited delays',
    run: (parameters) =>
      fc.assert(
        fc.property(
          fc
            .record(VALID as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: [] })
            .filter((options) => offendingNames(options).length === 0),
          anyOptions,
          (baseOptions, overrides) => {
            const base = createBackoff(baseOptions as BackoffOptions);
            const offending = offendingNames(overrides, base.options);
            let policy: ReturnType<typeof createBackoff>;
            try {
              policy = base.extend(overrides as BackoffOptions);
            } catch (error) {
              expect(offending.length, `threw ${String(error)} for valid overrides`).toBeGreaterThan(0);
              expectNamingError(error, offending);
              return;
            }
            expect(offending, 'accepted invalid overrides').toEqual([]);
            expectResolved(policy.options as unknown as Record<string, unknown>, overrides);
            if (overrides.budget === undefined) expect(policy.budget).toBe(base.budget);
            expectSaneDecision(policy);
          },
        ),
        parameters,
      ),
  },
  ...OVERRIDE_TARGETS.map(
    (target): FuzzProperty => ({
      name: `${target.name}: any per-request override -> sent as usual, or rejected naming it with nothing sent`,
      run: (parameters) =>
        fc.assert(
          fc.asyncProperty(anyOptions, async (override) => {
            const offending = offendingNames(override);
            const outcome = await target.send(override);
            const methods = Array.isArray(override.methods) ? override.methods : undefined;
            if (offending.length === 0 && keyGeneratorFails(override.idempotencyKey, methods)) {
              // Valid at creation, but the key generator returned no usable key for this GET (GET is not in
              // `methods`): the documented TypeError, before anything is sent.
              expect(outcome.sent).toBe(0);
              expectNamingError(outcome.error, ['idempotencyKey']);
            } else if (offending.length === 0) {
              // Sent, and answered. More than once only if the override's shouldRetry said to retry a 200.
              expect(outcome, 'a valid override must not stop the request').toMatchObject({ status: 200 });
              expect(outcome.sent).toBeGreaterThanOrEqual(1);
              expect(outcome.sent).toBeLessThanOrEqual(((override.retries as number | undefined) ?? 3) + 1);
            } else {
              expect(outcome.sent, 'nothing may be sent with a bad override').toBe(0);
              expectNamingError(outcome.error, offending);
            }
          }),
          parameters,
        ),
    }),
  ),
];
