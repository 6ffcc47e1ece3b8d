import { type AxiosAdapter, AxiosError, type AxiosInstance, type InternalAxiosRequestConfig } from 'axios';
import { briefly } from 'backoff-core/adapter';

// Bundlers replace it: a production bundle leaves out the long explanations (docs/errors.md has them).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

// axios-retry's and retry-axios's own config keys, left on a request or an instance after moving over: axios-backoff
// would send the request with its own rules in silence (a `{ retries: 0 }` opt-out sent 4 times), so such a request
// fails unsent, saying what each field is here. What a field becomes; `retries`-like counts are written by `count`.
const NOT_NEEDED = 'not needed here';
const PEERS = {
  'axios-retry': {
    name: 'axios-retry',
    removal: 'drop the `axiosRetry(instance)` call, or eject the two interceptor ids it returned',
    count: 'retries',
    fields: {
      retryCondition: '`shouldRetry(context)`, asked about failures only',
      retryDelay: '`delay(context)` (a function) or `baseDelay` (ms)',
      shouldResetTimeout: `${NOT_NEEDED}: \`timeout\` is per attempt, \`deadline\` bounds the whole call`,
      onRetry: '`onRetry(event)`: one RetryEvent `{ retry, delay, error, status, url, ... }`',
      onMaxRetryTimesExceeded: `${NOT_NEEDED}: the final error carries \`getBackoffResult(error)\``,
      validateResponse: "axios's `validateStatus`, and `shouldRetry` for what is retried",
    },
    // What its interceptors keep on each request: found there, they are still on the instance.
    state: ['retryCount', 'lastRequestTime'],
  },
  raxConfig: {
    name: 'retry-axios',
    removal: 'drop the `rax.attach(instance)` call, or `rax.detach(id, instance)` with the id it returned',
    count: 'retry',
    fields: {
      noResponseRetries: `${NOT_NEEDED}: network errors are retried within \`retries\``,
      retryDelay: '`baseDelay` (ms)',
      backoffType: "`jitter` and `factor`; `delay(context)` for 'static' or 'linear'",
      jitter: "`jitter` ('none', 'full' and 'equal' as they are)",
      maxRetryDelay: '`maxDelay`',
      httpMethodsToRetry: '`methods`',
      statusCodesToRetry: '`statusCodes`, a flat list of statuses',
      shouldRetry: '`shouldRetry(context)`: a context, not the error, asked about failures only',
      onRetryAttempt: '`onRetry(event)`, before the wait',
      onError: '`onRetry(event)`',
      checkRetryAfter: `${NOT_NEEDED}: Retry-After is always read`,
      maxRetryAfter: '`maxRetryAfter`',
      instance: `${NOT_NEEDED}: \`axiosBackoff(instance)\` takes the instance`,
    },
    state: ['currentRetryAttempt', 'retriesRemaining', 'attempt', 'errors'],
  },
} as const;

type PeerKey = keyof typeof PEERS;
// The keys alone: the table above, all explanation, is only read in development.
const PEER_KEYS: readonly PeerKey[] = ['axios-retry', 'raxConfig'];

/** The one line that says a peer is still attached to the instance, and how to remove it. */
function stillAttached(key: PeerKey): string {
  const { name, removal } = PEERS[key];
  return `${name} is still attached to this axios instance: remove it first (${removal}), or it retries again what axios-backoff already retried.`;
}

// Neither peer marks its interceptors: what marks them is their published code. axios-retry 4's request and response
// interceptors both call `setCurrentState(config, defaultOptions…)`; retry-axios 4's error handler is
// `(error) => onError(inst, error)`. A bundle that renames them is caught on the request instead (its settings).
const MARKS: Record<PeerKey, RegExp> = {
  'axios-retry': /\bsetCurrentState\(config, defaultOptions\b/,
  raxConfig: /\bonError\(inst, error\)/,
};

/** An interceptor list's handlers, ejected ones left out (axios leaves `null` in their place, or trims them). */
function handlers(manager: unknown): { fulfilled?: unknown; rejected?: unknown }[] {
  const list = (manager as { handlers?: unknown } | undefined)?.handlers;
  return Array.isArray(list) ? list.filter((handler) => typeof handler === 'object' && handler !== null) : [];
}

/**
 * The one-line message for a peer whose interceptors are on `instance` (axios-retry's, retry-axios's), or
 * `undefined`: both retrying one instance re-send what the other already retried.
 */
export function attachedPeer(instance: AxiosInstance): string | undefined {
  const { request, response } = instance.interceptors;
  const code = [...handlers(request), ...handlers(response)].flatMap(({ fulfilled, rejected }) =>
    [fulfilled, rejected]
      .filter((fn) => typeof fn === 'function')
      .map((fn) => Function.prototype.toString.call(fn)),
  );
  const key = PEER_KEYS.find((peer) => code.some((text) => MARKS[peer].test(text)));
  if (key === undefined) return undefined;
  return process.env.NODE_ENV !== 'production'
    ? stillAttached(key)
    : briefly('peer-attached', 'instance', key);
}

/** What one leftover field becomes here. */
function translate(key: PeerKey, field: string, value: unknown): string {
  const { count, fields, name } = PEERS[key];
  if (field === count) return `\`retries: ${String(value)}\`${value === 0 ? ' (or `backoff: false`)' : ''}`;
  return Object.hasOwn(fields, field)
    ? fields[field as keyof typeof fields]
    : `not one of ${name}'s fields: it had no meaning there either`;
}

/**
 * The error for a request that still carries a peer's settings (its own or its instance's defaults'), or
 * `undefined`. An AxiosError with axios's own code for an option it does not take, `'ERR_BAD_OPTION'`, and the
 * config: response interceptors, `axios.isAxiosError` and `error.config` work as for any failure.
 */
export function peerConfigError(
  config: InternalAxiosRequestConfig,
  instance: AxiosInstance,
): AxiosError | undefined {
  const own = config as unknown as Record<string, unknown>;
  const found = PEER_KEYS.find((key) => own[key] !== undefined);
  if (found === undefined) return undefined;
  const message =
    process.env.NODE_ENV !== 'production'
      ? peerProblems(own, instance).join('\n')
      : briefly(
          'peer-settings',
          found === 'raxConfig' ? 'config.raxConfig' : "config['axios-retry']",
          own[found],
        );
  return new AxiosError(`Not sent: ${message}`, 'ERR_BAD_OPTION', config);
}

/** What each peer's settings on the request are, and what each of their fields is here. */
function peerProblems(own: Record<string, unknown>, instance: AxiosInstance): string[] {
  const defaults = instance.defaults as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of PEER_KEYS) {
    const settings = own[key];
    if (settings === undefined) continue;
    const fields = typeof settings === 'object' && settings !== null ? Object.entries(settings) : [];
    const state = (field: string) => (PEERS[key].state as readonly string[]).includes(field);
    const lines = (entries: [string, unknown][]) =>
      entries.map(([field, value]) => `\n- \`${field}\`: ${translate(key, field, value)}`).join('');
    // Its own state on the request: its interceptors are still on the instance, the cause to say first.
    if (fields.some(([field]) => state(field))) {
      const kept = fields.filter(([field]) => !state(field));
      const carry = kept.length > 0 ? `\nIts settings, to write in \`axiosBackoff(instance, options)\`:` : '';
      problems.unshift(`${stillAttached(key)}${carry}${lines(kept)}`);
      continue;
    }
    // axios merges the instance's defaults into every request: the defaults are where to fix it, when they hold it.
    const path = key === 'raxConfig' ? '.raxConfig' : "['axios-retry']";
    const where =
      defaults[key] === undefined
        ? `this request's config (\`config${path}\`)`
        : `\`instance.defaults${path}\``;
    const to = defaults[key] === undefined ? "the request's `backoff`" : '`axiosBackoff(instance, options)`';
    problems.push(
      `${PEERS[key].name}'s settings in ${where} are not read by axios-backoff: write them in ${to}, then remove them.${lines(fields)}`,
    );
  }
  return problems;
}

/** An adapter that sends nothing and rejects with `error`: the request fails where axios fails any request. */
export function failing(error: AxiosError): AxiosAdapter {
  return () => Promise.reject(error);
}

/** How a value shows in an error: a number as it is, anything else by its type. */
const shown = (value: unknown) => (typeof value === 'number' ? String(value) : typeof value);

/**
 * What `attemptTimeout` given to axios-backoff says: axios's own `timeout` already bounds each attempt (every retry
 * gets all of it), and a second timer beside it would only make two answers to one question.
 */
export function attemptTimeoutMessage(value: unknown, where: string): string {
  if (process.env.NODE_ENV === 'production') return briefly('attempt-timeout', 'attemptTimeout', value);
  return `\`attemptTimeout\` is withBackoff's option, not axios-backoff's (${where}, got ${shown(value)}): axios's own \`timeout\` is already per attempt, each retry gets all of it. Set \`timeout\` on the instance or the request instead${typeof value === 'number' ? ` (\`timeout: ${value}\`)` : ''}; \`deadline\` bounds the whole call.`;
}

/** The error for a request whose `backoff` sets `attemptTimeout`: not sent, as for a peer's settings. */
export function attemptTimeoutError(config: InternalAxiosRequestConfig): AxiosError | undefined {
  const { backoff } = config;
  if (typeof backoff !== 'object' || backoff === null || backoff.attemptTimeout === undefined)
    return undefined;
  return new AxiosError(
    `Not sent: ${attemptTimeoutMessage(backoff.attemptTimeout, "in this request's `backoff`")}`,
    'ERR_BAD_OPTION',
    config,
  );
}
