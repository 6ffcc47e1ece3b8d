import type { Backoff } from './backoff.js';
import type { RequestDescription } from './decision.js';
import type { BackoffResult } from './events.js';
import { headerGetter } from './headers.js';

// Issue 17: most requests succeed at once, and a `RetryState` built for each of them was the largest part of an
// adapter's own work per request. These let an adapter start the state only when a first attempt is no success.
// Standalone functions, not policy methods: a bundle whose adapter does not use them leaves them out.

/** The result of every call that succeeded at its first attempt: one frozen object, shared. */
const FIRST_TRY: BackoffResult = Object.freeze({
  attempts: 1,
  totalDelay: 0,
  reason: 'success',
  serverDelay: undefined,
});

/**
 * The method's name upper-cased. axios names every request in lower case, and upper-casing `'get'` anew for each
 * GET was about a tenth of axios-backoff's own work per request: that one name is spelt out.
 */
function upperMethod(method = 'GET'): string {
  return method === 'get' ? 'GET' : method.toUpperCase();
}

/**
 * Whether `request` may be sent before its state is started: an idempotent method with no key header of its own,
 * under a policy that does nothing for a request before or during its first attempt (no `deadline`,
 * `shouldRetry`, circuit breaker or metrics). Its first attempt is then ended by `firstSuccess`, or decided by a
 * state started after it (`policy.start(request)`, as it would have been before sending: nothing a state does
 * before sending applies to such a request).
 */
export function startsLate(
  policy: Backoff,
  request: Pick<RequestDescription, 'method' | 'headers'>,
): boolean {
  const { options } = policy;
  return (
    !options.circuitBreaker &&
    !options.metrics &&
    options.deadline === undefined &&
    options.shouldRetry === undefined &&
    options.methods.has(upperMethod(request.method)) &&
    // A caller's key is checked before sending (and makes a 409 retryable): that takes a state. An adapter that
    // looked for the key itself passes no headers.
    (request.headers === undefined ||
      headerGetter(request.headers)(options.idempotencyKeyHeader) === undefined)
  );
}

/**
 * For the first attempt of a request that started late, when it got a response: if its status ends the call as
 * a success (below 400 and not in `statusCodes`, the verdict a state gives it), records the success in the budget
 * and returns the call's result (one shared frozen object). `undefined` otherwise: then a state started
 * for the request decides the attempt.
 */
export function firstSuccess(policy: Backoff, status: unknown): BackoffResult | undefined {
  // `!(status < 400)` also sends a status that is no number down the full path, as a state would judge it.
  if (!((status as number) < 400) || policy.options.statusCodes.has(status as number)) return undefined;
  policy.budget?.recordSuccess();
  return FIRST_TRY;
}
