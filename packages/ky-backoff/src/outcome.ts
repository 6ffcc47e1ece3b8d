import { classifyError, classifyNetworkFailure, type ErrorKind } from 'backoff-core/adapter';

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** ky's errors are matched by name, as ky's own guards do: a second copy of ky has other classes. */
export function hasKyErrorName(
  error: unknown,
  name: 'HTTPError' | 'NetworkError' | 'TimeoutError' | 'ForceRetryError',
) {
  if (field(error, 'name') !== name) return false;
  // `AbortSignal.timeout()` aborts with a DOMException also named TimeoutError: that one is the caller's.
  return !(typeof DOMException !== 'undefined' && error instanceof DOMException);
}

/**
 * How a failed ky attempt failed, in the core's terms. `aborted` says whether the caller's signal is aborted:
 * then it is an abort whatever the error looks like. ky 2's `NetworkError` wraps fetch's own error as `cause`:
 * the core classifies that one; if it knows no code in it, ky's own verdict (a network failure, recognised by
 * the runtime's message) stands.
 */
export function errorKind(error: unknown, aborted: boolean): ErrorKind {
  if (aborted) return 'abort';
  if (hasKyErrorName(error, 'TimeoutError')) return 'timeout';
  if (hasKyErrorName(error, 'NetworkError')) {
    return classifyNetworkFailure(field(error, 'cause'));
  }
  return classifyError(error);
}
