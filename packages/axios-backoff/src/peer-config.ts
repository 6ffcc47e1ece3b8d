import { type AxiosAdapter, AxiosError, type AxiosInstance, type InternalAxiosRequestConfig } from 'axios';

// axios-retry's and retry-axios's own config keys, left on a request or an instance after moving over: axios-backoff
// would send the request with its own rules in silence (a `{ retries: 0 }` opt-out sent 4 times), so such a request
// fails unsent, saying what each field is here. What a field becomes; `retries`-like counts are written by `count`.
const NOT_NEEDED = 'not needed here';
const STILL_ATTACHED = 'its own state: it is still attached to this instance, remove it';
const PEERS = {
  'axios-retry': {
    label: "axios-retry's",
    count: 'retries',
    fields: {
      retryCondition: '`shouldRetry(context)`, asked about failures only',
      retryDelay: '`delay(context)` (a function) or `baseDelay` (ms)',
      shouldResetTimeout: `${NOT_NEEDED}: \`timeout\` is per attempt, \`deadline\` bounds the whole call`,
      onRetry: '`onRetry(event)`: one RetryEvent `{ retry, delay, error, status, url, ... }`',
      onMaxRetryTimesExceeded: `${NOT_NEEDED}: the final error carries \`getBackoffResult(error)\``,
      validateResponse: "axios's `validateStatus`, and `shouldRetry` for what is retried",
      retryCount: STILL_ATTACHED,
      lastRequestTime: STILL_ATTACHED,
    },
  },
  raxConfig: {
    label: "retry-axios's",
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
      currentRetryAttempt: STILL_ATTACHED,
      retriesRemaining: STILL_ATTACHED,
      attempt: STILL_ATTACHED,
      errors: STILL_ATTACHED,
    },
  },
} as const;

type PeerKey = keyof typeof PEERS;

/** What one leftover field becomes here. */
function translate(key: PeerKey, field: string, value: unknown): string {
  const { count, fields, label } = PEERS[key];
  if (field === count) return `\`retries: ${String(value)}\`${value === 0 ? ' (or `backoff: false`)' : ''}`;
  return Object.hasOwn(fields, field)
    ? fields[field as keyof typeof fields]
    : `not one of ${label} fields: it had no meaning there either`;
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
  const defaults = instance.defaults as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(PEERS) as PeerKey[]) {
    const settings = own[key];
    if (settings === undefined) continue;
    // axios merges the instance's defaults into every request: the defaults are where to fix it, when they hold it.
    const path = key === 'raxConfig' ? '.raxConfig' : "['axios-retry']";
    const where =
      defaults[key] === undefined
        ? `this request's config (\`config${path}\`)`
        : `\`instance.defaults${path}\``;
    const to = defaults[key] === undefined ? "the request's `backoff`" : '`axiosBackoff(instance, options)`';
    const fields = typeof settings === 'object' && settings !== null ? Object.entries(settings) : [];
    const lines = fields.map(([field, value]) => `\n- \`${field}\`: ${translate(key, field, value)}`);
    problems.push(
      `${PEERS[key].label} settings in ${where} are not read by axios-backoff: write them in ${to}, then remove them.${lines.join('')}`,
    );
  }
  return problems.length === 0
    ? undefined
    : new AxiosError(`Not sent: ${problems.join('\n')}`, 'ERR_BAD_OPTION', config);
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
