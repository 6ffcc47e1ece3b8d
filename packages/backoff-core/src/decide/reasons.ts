/** Why a retry is made. */
export type RetryReason =
  /** The status is in `statusCodes`. */
  | 'status'
  /** 409 on a request with an Idempotency-Key: the original is still in flight (the draft's advice). */
  | 'idempotency-conflict'
  /** 413 with a server timing header. */
  | 'payload-too-large-with-timing'
  /** The connection failed: reset, refused, broken pipe, DNS try-again, "Failed to fetch". */
  | 'network-error'
  /**
   * The request provably never left: connection refused, DNS failure, connect timeout. Retried for any method,
   * with or without an Idempotency-Key; it counts against `retries` and the budget like any retry.
   */
  | 'not-sent'
  /** The client's own per-attempt timeout fired (`retryOnTimeout`). */
  | 'timeout'
  /** The server said `x-should-retry: true` or `Stripe-Should-Retry: true` (`shouldRetryHeaders`). */
  | 'should-retry-header'
  /** `shouldRetry` returned true. */
  | 'should-retry';

/** Why no (further) retry is made. */
export type StopReason =
  /** A response below 400: nothing to retry. */
  | 'success'
  /** A 4xx or 5xx status that is not retried (400, 401, 404, 501, ...). */
  | 'not-retryable-status'
  /** The error is not one that is retried: TLS/certificate, or an unknown error (often a bug). */
  | 'not-retryable-error'
  /** The request was aborted by its caller. Never retried. */
  | 'aborted'
  /** A per-attempt timeout, and `retryOnTimeout` is false. */
  | 'timeout-not-retried'
  /** The server said `x-should-retry: false` or `Stripe-Should-Retry: false` (`shouldRetryHeaders`). */
  | 'should-retry-header'
  /** `shouldRetry` returned false. */
  | 'should-retry'
  /** The method is not in `methods` and the request has no Idempotency-Key. */
  | 'method-not-idempotent'
  /** The request body is a one-shot stream that cannot be sent again. */
  | 'body-not-replayable'
  /**
   * The body was cut after the headers and could not go on (`resume`): the `ResumeError` it failed with says why in
   * its `code` (the file changed, the server ignores ranges, a POST's body, an event stream without an id...). Shown
   * once the body failed: until then the call had succeeded.
   */
  | 'not-resumable'
  /** `retries` retries were already made. */
  | 'retries-exhausted'
  /**
   * The server asked for a wait again after `serverRetries` retries already waited what it asked: a server that
   * keeps asking cannot keep a call going.
   */
  | 'server-retries-exhausted'
  /**
   * The server asked for a delay longer than `maxRetryAfter`, or asked again so often that the floor on repeated
   * asks (100 ms, doubled each time) passed it.
   */
  | 'retry-after-too-long'
  /** The wait would end after `deadline`. */
  | 'deadline'
  /** The retry budget is empty: the server (or this client) is failing too much to retry. */
  | 'budget-exhausted'
  /** The origin's circuit is open (`circuitBreaker`): nothing was sent, or a retry would have waited into it. */
  | 'circuit-open'
  /**
   * A callback of yours (`shouldRetry`, `delay`, `onRetry`, `onHold`, `onHedge`, a pacer's `key`) threw or rejected: the call ended
   * with that error (a rejection with no Error, such as `undefined` or a string, as a TypeError naming the callback,
   * with the attempt's own error or response as its `cause`), and nothing more was sent.
   */
  | 'callback-error';
