// What an adapter author needs to put a client on the core: the runner and what it asks of a client, outcomes and
// how to classify a client's errors, and the result the caller's response or error carries.
export { replayableBody } from './body.js';
export { isRetryBudget, type RetryKind } from './budget.js';
export type { Decision, RetryDecision, StopDecision } from './decide/rules.js';
export type { Held } from './events.js';
export type { FetchLike } from './fetch.js';
export { type HeaderGetter, type HeadersLike, headerGetter } from './headers.js';
export { parseHttpDate } from './http-date.js';
export { fetchRedirected, field } from './not-sent.js';
export { DEFAULTS, type ResolvedOptions } from './options.js';
export {
  classifyError,
  classifyNetworkFailure,
  type ErrorKind,
  type Outcome,
  responseOutcome,
} from './outcome.js';
export { receivedHeaders } from './raw-headers.js';
export { attachResult } from './result.js';
// Types only: the resume code is loaded by the runner, and only for a call with `resume`.
export type {
  NodeReadableLike,
  Reopen,
  ReopenRequest,
  ResolvedResumeOptions,
  ResponseBody,
  ResumeCall,
  StreamResponse,
} from './resume/index.js';
export type { Call, RequestDescription } from './run/call.js';
export { type Settled, Stopped } from './run/roles.js';
export { type Attempt, type Client, decide, runCall, type Stamp, startCall } from './run/run.js';
export { sleep, type TimerProvider } from './sleep.js';
export { webResponseBody } from './web-body.js';
