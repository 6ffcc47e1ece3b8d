// Setup file of `pnpm test:unit`: a unit test runs on virtual time (a VirtualClock's `now` and `timers`, or
// vi.useFakeTimers()), never on the machine's: CI's machine is busy, so a test that reads real time fails there
// now and then. Test code that reads the wall clock (Date.now(), performance.now(), new Date() or Date() without a
// time), and code of this repository that starts a real timer of more than 0 ms (a real sleep, the library's
// default timers), fail the test they ran in. Let through: other packages' reads (undici, msw and axios stamp
// their own timings), the library's default `now` in a test that never looks at time, setImmediate and 0 ms
// timers (a turn of the event loop, not a wait). A fake timer or Date never reaches these wrappers.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { violation } from './unit-violations.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Who called `callee`: test code, other code of this repository, or neither (a package, Node itself). */
function callerOf(callee: (...args: never[]) => unknown): 'test' | 'repository' | undefined {
  const { prepareStackTrace, stackTraceLimit } = Error;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.captureStackTrace(holder, callee);
    const file = holder.stack?.[0]?.getFileName()?.replace(/^file:\/\//, '');
    if (file === undefined || !file.startsWith('/')) return undefined;
    const path = relative(ROOT, file);
    if (path.startsWith('..') || path.includes('node_modules')) return undefined;
    return /(^|\/)test\//.test(path) ? 'test' : 'repository';
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** The line that called `callee`, as the test's own stack shows it (source-mapped). */
function placeOf(callee: (...args: never[]) => unknown): string {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, callee);
  return holder.stack?.split('\n')[1]?.trim().replace(/^at /, '') ?? 'an unknown line';
}

function readsClock(what: string, callee: (...args: never[]) => unknown): void {
  if (callerOf(callee) !== 'test') return;
  report(
    `A unit test may not read the wall clock (${what}, ${placeOf(callee)}): take the time from a VirtualClock ` +
      '(its `now`) or vi.useFakeTimers(), so that a busy machine changes nothing.',
  );
}

function startsTimer(what: string, ms: unknown, callee: (...args: never[]) => unknown): void {
  if (!(typeof ms === 'number' && ms > 0) || callerOf(callee) === undefined) return;
  report(
    `A unit test may not wait on a real timer (${what} of ${ms} ms, ${placeOf(callee)}): pass a VirtualClock's ` +
      '`timers` or use vi.useFakeTimers(); for a turn of the event loop, setImmediate.',
  );
}

// Installed once per process, whatever the number of test files it runs: each file's run points the report at
// its own list of violations.
const REPORT = Symbol.for('backoff.noWallClock');
const global = globalThis as typeof globalThis & { [REPORT]?: (message: string) => void };
const installed = global[REPORT] !== undefined;
global[REPORT] = (message) => violation(message);
const report = (message: string) => global[REPORT]?.(message);

if (!installed) {
  const realNow = Date.now;
  Date.now = function now() {
    readsClock('Date.now()', now);
    return realNow();
  };
  const realPerformanceNow = performance.now.bind(performance);
  performance.now = function now() {
    readsClock('performance.now()', now);
    return realPerformanceNow();
  };
  // A proxy, not a subclass: a Date made anywhere is still `instanceof Date`.
  const handler: ProxyHandler<DateConstructor> = {
    construct(target, args, newTarget) {
      if (args.length === 0) readsClock('new Date()', handler.construct as never);
      return Reflect.construct(target, args, newTarget);
    },
    apply(target, self, args) {
      readsClock('Date()', handler.apply as never);
      return Reflect.apply(target, self, args);
    },
  };
  globalThis.Date = new Proxy(Date, handler);

  const realSetTimeout = globalThis.setTimeout;
  const realSetInterval = globalThis.setInterval;
  const guardedSetTimeout = function setTimeout(callback: () => void, ms?: number, ...args: unknown[]) {
    startsTimer('setTimeout', ms, setTimeout);
    return realSetTimeout(callback, ms, ...args);
  };
  // `promisify(setTimeout)` keeps working as Node's own.
  Object.defineProperty(guardedSetTimeout, promisify.custom, {
    value: (realSetTimeout as unknown as Record<symbol, unknown>)[promisify.custom],
  });
  globalThis.setTimeout = guardedSetTimeout as typeof globalThis.setTimeout;
  globalThis.setInterval = function setInterval(callback: () => void, ms?: number, ...args: unknown[]) {
    startsTimer('setInterval', ms, setInterval);
    return realSetInterval(callback, ms, ...args);
  } as typeof globalThis.setInterval;
}
