/**
 * Anything headers can be read from: a fetch `Headers` (or AxiosHeaders: any object with `get`), a plain object
 * with keys in any case (values may be arrays or numbers, as in Node's IncomingHttpHeaders), or a getter.
 */
export type HeadersLike =
  | { get(name: string): unknown }
  | Readonly<Record<string, unknown>>
  | ((name: string) => unknown);

/** A case-insensitive header reader; `undefined` when the header is absent. */
export type HeaderGetter = (name: string) => string | undefined;

function text(value: unknown): string | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  try {
    // Repeated headers arrive as arrays; fetch joins them with ", " and so do we.
    if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(String).join(', ');
    return String(value);
  } catch {
    // A value with no string form (a null-prototype object, a throwing toString) is malformed: ignored.
    return undefined;
  }
}

/** Turns any `HeadersLike` into one case-insensitive getter. */
export function headerGetter(headers: HeadersLike | undefined | null): HeaderGetter {
  if (headers === undefined || headers === null) return () => undefined;
  if (typeof headers === 'function') return (name) => text(headers(name));
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') return (name) => text(get.call(headers, name));
  const record = headers as Readonly<Record<string, unknown>>;
  // Lower-cased once, on the first miss: parseRetryAfter asks for up to ten names, most of them absent.
  let lowered: Map<string, string> | undefined;
  return (name) => {
    if (Object.hasOwn(record, name)) return text(record[name]);
    if (lowered === undefined) {
      lowered = new Map();
      for (const key of Object.keys(record)) {
        // The first key of a case wins, as a scan in key order would find it.
        const lower = key.toLowerCase();
        if (!lowered.has(lower)) lowered.set(lower, key);
      }
    }
    const key = lowered.get(name.toLowerCase());
    return key === undefined ? undefined : text(record[key]);
  };
}
