export { describeBeforeAttemptClient } from './before-attempt-suite.js';
export {
  type BackoffClientDriver,
  describeBackoffClient,
  type ErrorKindSeen,
  type Settled,
  type SuiteRequest,
} from './behaviour-suite.js';
export { describeCircuitBreakerClient, describeMetricsClient } from './breaker-suite.js';
export { describeCallbackErrorsClient } from './callback-suite.js';
export { collected } from './collected.js';
export { FakeNetwork } from './fake-network.js';
export { describeHedgingClient } from './hedge-suite.js';
export { type PaceFleetOptions, type PaceFleetRun, paceFleet } from './pace-fleet.js';
export { describePacerClient, type PacerSuiteOptions } from './pacer-suite.js';
export { describeReexports, publicErrorClasses } from './reexports-suite.js';
export {
  axiosRequestOptions,
  axiosResponseBody,
  fetchRequestInit,
  fetchResponseBody,
  kyRequestOptions,
} from './request-options.js';
export { API, API_2, type Hit, type Route, ScriptedApi, type Step } from './scripted-api.js';
export { serveTests, type TestServer } from './serve-tests.js';
export { cycling, StallingPacerStore } from './stalling-store.js';
export { describeCircuitStore, describePacerStore } from './store-suite.js';
export { VirtualClock } from './virtual-clock.js';
