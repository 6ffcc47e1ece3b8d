// ky is ESM-only. `require('ky')` (Node's require(esm)) and `import * as ky from 'ky'` give its module namespace,
// whose `default` is ky itself: the commonest wrong argument from CommonJS code, so it gets a message of its own.

/** Throws a TypeError saying to pass `.default` when `value` is ky's module namespace object instead of ky. */
export function rejectModuleNamespace(value: unknown): void {
  if (typeof value !== 'object' || value === null || !('default' in value)) return;
  const ky = (value as { default: unknown }).default;
  if (typeof ky === 'function' && typeof (ky as { extend?: unknown }).extend === 'function') {
    throw new TypeError(
      "Expected `instance` to be a ky instance, got ky's module namespace: pass its `default` export.",
    );
  }
}
