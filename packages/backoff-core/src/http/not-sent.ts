/**
 * Failures that prove no byte of the request left the client: the connection was never established, so a
 * new attempt cannot apply the request twice, whatever its method. A browser's "Failed to fetch" is never one of
 * them: a browser does not say where its request failed.
 */

// These only ever happen before a connection exists: DNS lookups (ENOTFOUND, EAI_AGAIN), a refused connect
// (a reset on a live connection is ECONNRESET), and undici's connect timeout.
const BEFORE_CONNECT = /^(?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT)$/;
// These can also end a connection that already carried the request (an ICMP error reported on a later read or
// write, a retransmission timeout): they prove nothing unless the failed system call was `connect`.
const CONNECT_ONLY = /^(?:EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|ETIMEDOUT)$/;

/** A property of an error that may be anything (`undefined` for a primitive). */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The errors on a cause chain (five at most), with the members of an AggregateError (Node's happy-eyeballs
 * connect) when `members` says so.
 */
export function* chain(error: unknown, members?: boolean): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    yield current;
    const errors = field(current, 'errors');
    if (members && Array.isArray(errors)) yield* errors.slice(0, 8);
    current = field(current, 'cause');
  }
}

/** Whether an error whose (first) code is `code` proves that the connection was never made. */
export function isNotSentCode(code: string, error: unknown): boolean {
  if (BEFORE_CONNECT.test(code)) return true;
  if (!CONNECT_ONLY.test(code)) return false;
  // axios copies the code onto its own error; the system error with the syscall is further down the chain.
  for (const node of chain(error, true)) {
    if (field(node, 'code') === code && field(node, 'syscall') === 'connect') return true;
  }
  return false;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[\da-f:.]*:[\da-f:.]*)$/i;

/**
 * Whether a failure that happened before any connection (see `isNotSentCode`) proves that no attempt of the
 * request reached a server, through any redirect. `redirected` is what the client can tell about this attempt:
 * `false` when it followed no redirect (fetch's `redirect: 'manual'` or `'error'`, axios's `maxRedirects: 0`, a
 * redirect count of 0), `true` when it followed one, `undefined` when it cannot tell (fetch's default
 * `redirect: 'follow'`).
 *
 * - Followed a redirect: no proof, the first hop reached a server.
 * - Followed none: proof, unless the error names a destination that is not the URL's (a proxy, say).
 * - Cannot tell: proof only when the error names the URL's own destination: a DNS failure for its host name, or a
 *   refused connect to its IP-literal host and port. An error that names nothing (undici's connect timeout) or
 *   the address of a host name (which may or may not be what the name resolved to) proves nothing: fail closed.
 *   One case stays: a redirect to the very address and port that just answered, refused a moment later, looks
 *   the same as the first hop refused (the server would have to go down in between).
 */
export function provesNotSent(
  error: unknown,
  url: string | undefined,
  redirected: boolean | undefined,
): boolean {
  if (redirected === true) return false;
  let target: URL | undefined;
  try {
    // No URL (`new URL(undefined)` throws too) or one that does not parse: nothing to compare.
    target = new URL(url as string);
  } catch {
    target = undefined;
  }
  if (target === undefined) return redirected === false;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port === '' ? DEFAULT_PORTS[target.protocol] : Number(target.port);
  const ipLiteral = IP_LITERAL.test(host);
  let provedOwn = false;
  // Each error on the chain may name a destination: a DNS error its `hostname`, a connect error `address` and `port`.
  for (const node of chain(error, true)) {
    const hostname = field(node, 'hostname');
    const address = field(node, 'address');
    const errorPort = field(node, 'port');
    const samePort = typeof errorPort === 'number' && errorPort === port;
    if (typeof errorPort === 'number' && port !== undefined && !samePort) return false;
    if (typeof hostname === 'string') {
      if (hostname.toLowerCase() !== host) return false;
      provedOwn = true;
    }
    if (typeof address === 'string' && ipLiteral) {
      if (address.toLowerCase() !== host) return false;
      provedOwn ||= samePort;
    }
  }
  return redirected === false || provedOwn;
}

/**
 * What a fetch request's `redirect` mode tells about an attempt that failed: with `'manual'` or `'error'` fetch
 * follows no redirect (`false`); with `'follow'`, the default, a failure may belong to a later hop (`undefined`).
 */
export function fetchRedirected(mode: unknown): false | undefined {
  return mode === 'manual' || mode === 'error' ? false : undefined;
}
