/**
 * Which tests are unit tests (`pnpm test:unit`: no socket, browser or install; fast enough to run on every save)
 * and which are integration tests (`pnpm test:integration`: the rest). Listed here are the integration tests, by
 * project: `'all'` or files relative to the project. Every other test is a unit test, run with a guard that fails
 * a test that listens or connects (test/test-utils/src/no-sockets.ts) or reads the wall clock
 * (no-wall-clock.ts). `pnpm test` runs both;
 * test/pack-smoke/test/test-split.test.ts proves that together they run every test once.
 */
export const INTEGRATION: Readonly<Record<string, 'all' | readonly string[]>> = {
  // A real Chromium.
  browser: 'all',
  // Packs and installs the packages; type-checks every README code block with tsc (tens of seconds); runs the
  // README's tracing set-up with the OpenTelemetry SDK installed by npm; bundles the installed packages with
  // esbuild, Vite and webpack and runs them against a server on 127.0.0.1.
  'pack-smoke': [
    'test/bundlers.test.ts',
    'test/one-install.test.ts',
    'test/pack-install.test.ts',
    'test/readme-code.test.ts',
    'test/tracing-setup.test.ts',
  ],
  // Sockets on 127.0.0.1 by design: faults only a real socket has.
  'fault-suite': 'all',
  // Every client through the demo's scenarios, on a real server.
  demo: 'all',
  // A real redis-server on 127.0.0.1, and fleets of processes sharing it.
  'backoff-redis': 'all',
  'shared-store': 'all',
  // The testing examples' proofs: each runs its example's suite in a child process (jest, or vitest with the app's
  // retry rule broken).
  'testing-jest': 'all',
  'testing-vitest': ['proof/wrong-retries.test.ts'],
  // The bench at a tiny size: a loopback server.
  benchmarks: ['test/smoke.test.ts'],
  // A server that holds answers (hedging), and what only a socket does (resets, stalls, keep-alive); spans and
  // traceparent as a real server sees them; an attempt a real server stalls; processes killed with SIGKILL while
  // their outbox queues and replays.
  'backoff-core': [
    'test/attempt-timeout.test.ts',
    'test/outbox/file-store-crash.test.ts',
    'test/tracing.test.ts',
    'test/with-backoff.hedge.test.ts',
  ],
  'axios-backoff': [
    'test/hedge-1.13.test.ts',
    'test/hedge-1.21.test.ts',
    'test/sockets-1.13.test.ts',
    'test/sockets-1.21.test.ts',
    'test/tracing.test.ts',
  ],
  'ky-backoff': [
    'test/bodies.test.ts',
    'test/hedge.test.ts',
    'test/hooks-stay-bounded.test.ts',
    'test/sockets.test.ts',
    'test/timeouts.test.ts',
    'test/tracing.test.ts',
  ],
};

/** The run being configured: set by vitest.unit.config.ts and vitest.integration.config.ts, else every test. */
export type TestKind = 'unit' | 'integration' | undefined;

// On the global object of the process that loads the configs, not in the environment: a vitest that a test starts
// in a child process (with a config of its own) must not inherit it.
const KIND = Symbol.for('backoff.testKind');

export function setTestKind(kind: TestKind): void {
  (globalThis as Record<symbol, TestKind>)[KIND] = kind;
}

export function testKind(): TestKind {
  return (globalThis as Record<symbol, TestKind>)[KIND];
}
