/**
 * Failures that prove no byte of the request left the client (R13): the connection was never established, so a
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
 * Whether the failed connection was the request's own: the host and port the system error names (a connect
 * error's `address` and `port`, a DNS error's `hostname`) are the request URL's. A client that followed a
 * redirect (a POST answered `303 See Other`, then a refused connection to the new location) or went through a
 * proxy fails on another destination: the request may have reached a server, so it is no "not sent".
 * A URL the core cannot parse, or an error that names no destination, gives nothing to compare.
 */
export function failedOnOwnDestination(error: unknown, url: string | undefined): boolean {
  let target: URL;
  try {
    // No URL (`new URL(undefined)` throws too) or one that does not parse: nothing to compare.
    target = new URL(url as string);
  } catch {
    return true;
  }
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port === '' ? DEFAULT_PORTS[target.protocol] : Number(target.port);
  for (const node of chain(error, true)) {
    const hostname = field(node, 'hostname');
    if (typeof hostname === 'string' && hostname.toLowerCase() !== host) return false;
    const errorPort = field(node, 'port');
    if (typeof errorPort === 'number' && port !== undefined && errorPort !== port) return false;
    const address = field(node, 'address');
    if (typeof address === 'string' && IP_LITERAL.test(host) && address.toLowerCase() !== host) return false;
  }
  return true;
}
