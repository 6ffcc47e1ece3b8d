/**
 * `describe(value)` for an error message, never throwing: a value with no string form (a null-prototype object,
 * a BigInt for JSON) shows as its type tag, so that the error still names the option instead of failing itself.
 */
export function show(value: unknown, describe: (value: unknown) => string | undefined = String): string {
  try {
    return String(describe(value));
  } catch {
    return {}.toString.call(value);
  }
}

/** A value as an error message shows what it got: strings quoted, objects and functions by their kind. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') {
    const tag = {}.toString.call(value);
    return tag === '[object Object]' ? 'an object' : tag;
  }
  return show(value);
}
