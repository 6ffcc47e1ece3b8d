import * as core from 'backoff-core';
import { describe, expect, it } from 'vitest';

type Module = Readonly<Record<string, unknown>>;

const isErrorClass = (value: unknown): value is typeof Error =>
  typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error;

/**
 * Every error class a user of the core may test with `instanceof`, by the path they write it with: each one the
 * main entry exports (`ResumeError`), and each one a class it exports holds (`Pacer.DeadlineError`). Read from the
 * entry itself, so a new one is on the list the day it is exported.
 */
export function publicErrorClasses(entry: Module = core): [path: string, error: typeof Error][] {
  const found: [string, typeof Error][] = [];
  for (const [name, value] of Object.entries(entry)) {
    if (isErrorClass(value)) found.push([name, value]);
    else if (typeof value === 'function') {
      for (const member of Object.getOwnPropertyNames(value)) {
        const held = (value as unknown as Module)[member];
        if (isErrorClass(held)) found.push([`${name}.${member}`, held]);
      }
    }
  }
  return found.sort(([a], [b]) => a.localeCompare(b));
}

/** What `path` (`'Pacer.DeadlineError'`) names in `entry`. */
const at = (entry: Module, path: string): unknown =>
  path.split('.').reduce<unknown>((value, name) => (value as Module | undefined)?.[name], entry);

/**
 * An adapter's entry re-exports the core's public error classes (the very classes, so `instanceof` holds) and the
 * hook that OpenTelemetry's HTTP instrumentations read attempts with: one install, as the adapters' READMEs say.
 */
export function describeReexports(name: string, adapter: Module): void {
  describe(`${name} re-exports what its users need of the core`, () => {
    const errors = publicErrorClasses();

    it('the core lists its error classes (the list this checks is not empty)', () => {
      expect(errors.map(([path]) => path)).toEqual(
        expect.arrayContaining(['CircuitOpenError', 'Pacer.DeadlineError', 'ResumeError']),
      );
    });

    it.each(errors)('%s, the same class as the core', (path, error) => {
      expect(at(adapter, path)).toBe(error);
    });

    it('attemptAttributes, for the HTTP instrumentations', () => {
      expect(adapter.attemptAttributes).toBe(core.attemptAttributes);
    });
  });
}
