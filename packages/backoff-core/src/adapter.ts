// What an adapter author needs to put a client on the core: the call object and its loop, outcomes and how to
// classify a client's errors, the key stamp, and the result the caller's response or error carries.
export { type Attempts, type Settled, sendAttempts } from './attempts.js';
export type { Stamp } from './backoff.js';
export { replayableBody } from './body.js';
export { isRetryBudget, type RetryKind } from './budget.js';
export {
  type Decision,
  type RequestDescription,
  type RetryDecision,
  RetryState,
  type StopDecision,
} from './decision.js';
export type { Held } from './events.js';
export { type FetchLike, raceRequest } from './fetch.js';
export { type HeaderGetter, type HeadersLike, headerGetter } from './headers.js';
export { parseHttpDate } from './http-date.js';
export { fetchRedirected, field } from './not-sent.js';
export { DEFAULTS, type ResolvedOptions } from './options.js';
export { classifyError, classifyNetworkFailure, type ErrorKind, type Outcome } from './outcome.js';
export { attachResult } from './result.js';
export { sleep, type TimerProvider } from './sleep.js';
