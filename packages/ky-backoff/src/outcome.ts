import { classifyError, classifyNetworkFailure, type ErrorKind } from 'backoff-core';

export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** ky's errors are matched by name, as ky's own guards do: a second copy of ky has other classes. */
export function hasKyErrorName(
  error: unknown,
  name: 'HTTPError' | 'NetworkError' | 'TimeoutError' | 'ForceRetryError',
): boolean {
  if (field(error, 'name') !== name) return false;
  // `AbortSignal.timeout()` aborts with a DOMException also named TimeoutError: that one is the caller's.
  return !(typeof DOMException !== 'undefined' && error instanceof DOMException);
}

/**
 * How a failed ky attempt failed, in the core's terms (`aborted`: the caller's signal is aborted). ky 2's
 * NetworkError wraps fetch's own error as `cause`: the core classifies that one, and ky's verdict stands if it
 * knows no code in it.
 */
export function errorKind(error: unknown, aborted: boolean): ErrorKind {
  if (aborted) return 'abort';
  if (hasKyErrorName(error, 'TimeoutError')) return 'timeout';
  if (hasKyErrorName(error, 'NetworkError')) return classifyNetworkFailure(field(error, 'cause'));
  return classifyError(error);
}
