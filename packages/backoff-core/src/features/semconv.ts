/** The OpenTelemetry HTTP client convention's request attributes, shared by the metrics and the spans. */
import { parseUrl } from '../http/url.js';

/** The default port of each scheme that has one: `server.port` when the URL names none. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};

/**
 * The methods `http.request.method` names as they are: the HTTP convention's (RFC 9110's and PATCH), and QUERY,
 * which the core knows too. Any other is `'_OTHER'`, so that a typo cannot add a series.
 */
export const METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
  'QUERY',
]);

/**
 * The OpenTelemetry attributes of the server a URL (or an origin) points at: `url.scheme`, `server.address` (the
 * bare host, an IPv6 one without its brackets) and `server.port` (the scheme's default when the URL names none).
 * `undefined` for a URL with no host (a `data:` URL, whose origin is `'null'`) or none at all; never throws.
 */
export function serverAttributes(url: string | undefined): Record<string, string | number> | undefined {
  const parsed = parseUrl(url);
  if (parsed === undefined) return undefined;
  const { hostname, protocol } = parsed;
  if (hostname === '') return undefined;
  const attributes: Record<string, string | number> = {
    'url.scheme': protocol.slice(0, -1),
    'server.address': hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
  };
  const port = parsed.port === '' ? DEFAULT_PORTS[protocol] : Number(parsed.port);
  if (port !== undefined) attributes['server.port'] = port;
  return attributes;
}
