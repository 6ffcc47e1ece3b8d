// What an adapter author needs to put a client on the core: the runner and what it asks of a client, outcomes and
// how to classify a client's errors, and the result the caller's response or error carries.

export { generateIdempotencyKey } from './decide/idempotency.js';
export type { Decision, RetryDecision, StopDecision } from './decide/rules.js';
// Types only: the resume code is loaded by the runner, and only for a call with `resume`.
export type {
  NodeReadableLike,
  Reopen,
  ReopenRequest,
  ResolvedResumeOptions,
  ResponseBody,
  ResumeCall,
  StreamResponse,
} from './features/resume/index.js';
export type { FetchLike } from './fetch.js';
export { replayableBody } from './http/body.js';
export { type HeaderGetter, type HeadersLike, headerGetter } from './http/headers.js';
export { parseHttpDate } from './http/http-date.js';
export { fetchRedirected, field } from './http/not-sent.js';
export {
  classifyError,
  classifyNetworkFailure,
  type ErrorKind,
  type Outcome,
  type Replacement,
  responseOutcome,
} from './http/outcome.js';
export { receivedHeaders } from './http/raw-headers.js';
export { webResponseBody } from './http/web-body.js';
// The short message of a production build, for an adapter's own checks.
export { briefly, type ErrorCode } from './options/check.js';
export { DEFAULTS, type ResolvedOptions } from './options/options.js';
export { startCall } from './run/begin.js';
export { isRetryBudget, type RetryKind } from './run/budget.js';
export type { Call, RequestDescription } from './run/call.js';
export { decide } from './run/decide.js';
export type { Held } from './run/events.js';
export { attachResult } from './run/result.js';
export { type Attempt, type Client, type Settled, type Stamp, Stopped, type Transport } from './run/roles.js';
export { runCall } from './run/run.js';
export { sleep, type TimerProvider } from './run/sleep.js';
