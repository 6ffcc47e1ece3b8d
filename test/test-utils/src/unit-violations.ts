// What the unit-run guards (no-sockets.ts, no-wall-clock.ts) found: each fails the test during which it happened,
// even when the test caught the error it threw.
import { afterAll, afterEach } from 'vitest';

const violations: string[] = [];

/** Records that a unit test did what it may not; returns the message, for an error to throw where it happened. */
export function violation(message: string): string {
  violations.push(message);
  return message;
}

function check() {
  const found = new Set(violations.splice(0));
  if (found.size > 0) throw new Error([...found].join('\n'));
}

afterEach(check);
afterAll(check);

/** The violations recorded so far, taken off the list: for the guards' own tests. */
export function takeViolations(): string[] {
  return violations.splice(0);
}
