import type { HeadersLike } from '../http/headers.js';
import { provesNotSent } from '../http/not-sent.js';
import type { Outcome } from '../http/outcome.js';
import type { ResolvedOptions } from '../options/options.js';
import type { RetryReason, StopReason } from './reasons.js';
import { parseRetryAfter } from './server-timing.js';
import { serverShouldRetry } from './should-retry-header.js';

/** The default rules' word on one outcome, before `shouldRetry` and the limits. */
export type Verdict =
  | { readonly retryable: true; readonly reason: RetryReason }
  | { readonly retryable: false; readonly reason: StopReason };

/** What the verdict reads of the request besides the outcome. */
export interface VerdictFacts {
  readonly url: string | undefined;
  /** Whether the attempt as sent carried a usable Idempotency-Key (a 409 is retried only then). */
  readonly keyed: boolean;
}

/**
 * The server's explicit word on a failed answer (`x-should-retry`, `Stripe-Should-Retry`) when the policy reads
 * it, else `undefined`; an answer below 400 is a success whatever it says.
 */
export function serverSaid(
  options: Pick<ResolvedOptions, 'shouldRetryHeaders'>,
  outcome: { readonly status: number; readonly headers?: HeadersLike | undefined },
): boolean | undefined {
  return outcome.status >= 400 && options.shouldRetryHeaders ? serverShouldRetry(outcome.headers) : undefined;
}

/** The delay a failed answer asks for (Retry-After and friends), in ms; none below 400 or for an error. */
export function askedDelay(outcome: Outcome, now: number): number | undefined {
  return outcome.type === 'response' && outcome.status >= 400
    ? parseRetryAfter(outcome.headers, now)
    : undefined;
}

/**
 * Whether a 5xx answer says the backend is failing: one of `statusCodes`, or one the server asks to retry. A
 * server's `false` is about retrying, not about its health: a 503 that says it is still a failure. What the circuit
 * breaker counts.
 */
export function failing(
  outcome: Outcome,
  options: Pick<ResolvedOptions, 'statusCodes' | 'shouldRetryHeaders'>,
): boolean {
  return (
    outcome.type === 'response' &&
    outcome.status >= 500 &&
    (options.statusCodes.has(outcome.status) || serverSaid(options, outcome) === true)
  );
}

/** The default verdict on an outcome. `serverDelay` is what the answer asked for (`askedDelay`). */
export function verdict(
  outcome: Outcome,
  serverDelay: number | undefined,
  facts: VerdictFacts,
  options: ResolvedOptions,
): Verdict {
  // A retry the client's own hook asked for (ky's `ky.retry()`): the user's word, under every limit.
  if (outcome.forced) return { retryable: true, reason: 'should-retry' };
  if (outcome.type === 'response') {
    const { status } = outcome;
    // The server's explicit word decides first; a response below 400 is a success whatever it says.
    const said = serverSaid(options, outcome);
    if (said !== undefined) return { retryable: said, reason: 'should-retry-header' } as Verdict;
    if (options.statusCodes.has(status)) return { retryable: true, reason: 'status' };
    if (status === 409 && facts.keyed) return { retryable: true, reason: 'idempotency-conflict' };
    if (status === 413 && serverDelay !== undefined)
      return { retryable: true, reason: 'payload-too-large-with-timing' };
    return { retryable: false, reason: status < 400 ? 'success' : 'not-retryable-status' };
  }
  switch (outcome.kind) {
    case 'network':
      return { retryable: true, reason: 'network-error' };
    case 'not-sent':
      // Nothing left the client, unless a redirect took the request to a server first.
      return provesNotSent(outcome.error, facts.url, outcome.redirected)
        ? { retryable: true, reason: 'not-sent' }
        : { retryable: true, reason: 'network-error' };
    case 'timeout':
      return options.retryOnTimeout
        ? { retryable: true, reason: 'timeout' }
        : { retryable: false, reason: 'timeout-not-retried' };
    case 'abort':
      return { retryable: false, reason: 'aborted' };
    default:
      return { retryable: false, reason: 'not-retryable-error' };
  }
}

/** `shouldRetry`'s answer laid over the default verdict: only `true` and `false` change it. */
export function overridden(verdict: Verdict, override: unknown): Verdict {
  if (override === true && !verdict.retryable) return { retryable: true, reason: 'should-retry' };
  if (override === false && verdict.retryable) return { retryable: false, reason: 'should-retry' };
  return verdict;
}
