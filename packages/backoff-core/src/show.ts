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
