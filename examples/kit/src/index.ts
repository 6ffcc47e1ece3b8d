export { type ExampleClient, type ExampleOutcome, type ExampleRequest, errorText } from './client.js';
export { type DemoStep, type FlakyServer, type ServerHit, startFlakyServer } from './flaky-server.js';
export {
  type ExampleContext,
  runScenario,
  runScenarios,
  SCENARIOS,
  type Scenario,
  type SummaryRow,
} from './scenarios.js';
export { summaryTable } from './summary.js';
export { answerText, duration, Timeline } from './timeline.js';
