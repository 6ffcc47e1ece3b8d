/** A request's URL parsed, a relative one against the page's location; `undefined` when it does not parse. */
export function parseUrl(url: string | undefined): URL | undefined {
  try {
    return new URL(url ?? '', (globalThis as { location?: { href?: string } }).location?.href);
  } catch {
    return undefined;
  }
}

/** The origin of a request URL (`scheme://host:port`, default ports left out), `''` when it has none. */
export function originOf(url: string | undefined): string {
  return parseUrl(url)?.origin ?? '';
}
