// `backoff-core/testing`: what users import in their tests, never in an app. MSW handlers for the servers that
// matter, each counting what it received; virtual time for real, vitest's or jest's fake timers; seeded chaos.
// `msw` is its (optional) peer: the main entry never imports this file, so an app's bundle holds none of it.
export {
  type CutBodyOptions,
  cutBody,
  type EventStreamOptions,
  eventStream,
  type ServerEvent,
} from './testing/bodies.js';
export { type ChaosOptions, chaos } from './testing/chaos.js';
export {
  type FakeTimers,
  type TestOptions,
  type VirtualTime,
  type VirtualTimeOptions,
  virtualTime,
} from './testing/clock.js';
export {
  type Answer,
  type DownOptions,
  down,
  flaky,
  type KitHandler,
  type RateLimitedOptions,
  type ReceivedRequest,
  rateLimited,
  type SlowOptions,
  type Step,
  slow,
} from './testing/handlers.js';
