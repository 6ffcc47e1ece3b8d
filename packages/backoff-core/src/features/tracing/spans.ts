/**
 * The spans of the `tracer` option, loaded (with `@opentelemetry/api`) only when a policy has one: one INTERNAL
 * span per call, one span per send (each hedge's copy its own) after the OpenTelemetry HTTP client conventions,
 * the waits, holds and hedges as events on the call's span. A send's span is its request's CLIENT span, unless an
 * HTTP instrumentation of the client's transport makes that one: ours is then INTERNAL, so that each request has
 * one CLIENT span, and the instrumentation's reads the attempt's attributes from the context (`attemptAttributes`).
 */
import type * as Api from '@opentelemetry/api';
import type { Outcome } from '../../http/outcome.js';
import { parseUrl } from '../../http/url.js';
import type { AttemptHeaders } from '../../run/events.js';
import type {
  CallEvent,
  CallView,
  Feature,
  FeatureCall,
  SendView,
  SendWatch,
  Transport,
} from '../../run/roles.js';
import { METHODS, serverAttributes } from '../semconv.js';
import { ATTEMPT_ATTRIBUTES } from './context-key.js';
import type { TracerLike } from './otel.js';

type Attributes = Record<string, string | number | boolean>;

/**
 * Query parameters whose values are credentials, redacted in `url.full` by default as the OpenTelemetry HTTP
 * conventions list them (signed URLs of S3, SigV4, Google Cloud Storage, Azure). Matched case-sensitively, as they say.
 */
export const SECRET_PARAMS: readonly string[] = [
  'AWSAccessKeyId',
  'Signature',
  'sig',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

/** A query parameter's name as a server reads it (percent-decoded, `+` a space): `X%2DAmz-Signature` is redacted too. */
const paramName = (pair: string): string => new URLSearchParams(pair).keys().next().value ?? '';

/** One `name=value` of a query, its value `REDACTED` when its name is in `secret`; kept byte for byte otherwise. */
function redactedPair(pair: string, secret: ReadonlySet<string>): string {
  const equals = pair.indexOf('=');
  return equals !== -1 && secret.has(paramName(pair)) ? `${pair.slice(0, equals)}=REDACTED` : pair;
}

/**
 * `url.full` without credentials: a user and password become `REDACTED:REDACTED`, and the values of the query
 * parameters named in `secret` `REDACTED`. `undefined` when the URL cannot be parsed.
 */
export function redactedUrl(
  url: string | undefined,
  secret: ReadonlySet<string> = new Set(SECRET_PARAMS),
): string | undefined {
  const parsed = parseUrl(url);
  if (parsed === undefined) return undefined;
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = 'REDACTED';
    parsed.password = 'REDACTED';
  }
  const { search } = parsed;
  if (search !== '') {
    const query = `?${search
      .slice(1)
      .split('&')
      .map((pair) => redactedPair(pair, secret))
      .join('&')}`;
    if (query !== search) parsed.search = query;
  }
  return parsed.href;
}

/** The request's attributes every span of a call carries: method (normalised), server, URL (`secret` redacted). */
function requestAttributes(call: CallView, secret: ReadonlySet<string>): Attributes {
  const known = METHODS.has(call.method);
  const attributes: Attributes = {
    'http.request.method': known ? call.method : '_OTHER',
  };
  if (!known) attributes['http.request.method_original'] = call.method;
  const server = serverAttributes(call.url);
  if (server !== undefined) {
    // `url.scheme` is not one of a client span's attributes: `url.full` holds it.
    const { 'url.scheme': _scheme, ...rest } = server;
    Object.assign(attributes, rest);
  }
  const full = redactedUrl(call.url, secret);
  if (full !== undefined) attributes['url.full'] = full;
  return attributes;
}

/** The span name the convention gives a request: its method, `HTTP` for one it does not know. */
const nameOf = (call: CallView): string => (METHODS.has(call.method) ? call.method : 'HTTP');

/**
 * `error.type` of a send that failed: the status as a string for an answer of 400 and above; for an error its kind
 * in the core's terms (`timeout`, `network`, `not-sent`, `tls`, `aborted`), one the core does not know by the
 * error's name. `undefined` for a success.
 */
function errorType(outcome: Outcome): string | undefined {
  if (outcome.type === 'response') return outcome.status >= 400 ? String(outcome.status) : undefined;
  if (outcome.kind === 'abort') return 'aborted';
  if (outcome.kind !== 'unknown') return outcome.kind;
  const name = (outcome.error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : '_OTHER';
}

/** Writes a propagator's headers onto one send's headers. */
const SETTER: Api.TextMapSetter<AttemptHeaders> = {
  set: (headers, key, value) => headers.set(key, value),
};

/** One of Node's built-in modules, where there are any (not in a browser). */
const builtin = (id: string): unknown =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    id,
  );

const channels = builtin('node:diagnostics_channel') as
  | { hasSubscribers?: (name: string) => boolean }
  | undefined;
const requesters = [builtin('node:http'), builtin('node:https')] as ({ request?: unknown } | undefined)[];

/** A function an instrumentation wrapped: the shimmer's mark, which OpenTelemetry's instrumentations leave. */
const wrapped = (fn: unknown): boolean =>
  typeof fn === 'function' && (fn as { __wrapped?: unknown }).__wrapped === true;

/**
 * Whether an HTTP instrumentation makes the CLIENT span of each request sent on `transport`, asked at each send
 * (an instrumentation may be enabled or disabled at any time): something watches undici's requests (Node's fetch;
 * the undici instrumentation), or Node's `http.request` or `https.request` is wrapped (the http instrumentation).
 */
function instrumented(transport: Transport | undefined): boolean {
  if (transport === 'fetch') return channels?.hasSubscribers?.('undici:request:create') === true;
  if (transport === 'http') return requesters.some((module) => wrapped(module?.request));
  return false;
}

/** A span ended once, whoever asks last. */
class Once {
  #ended = false;
  constructor(readonly span: Api.Span) {}
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}

/** The spans of one call. */
class CallTrace implements FeatureCall {
  readonly #api: typeof Api;
  readonly #tracer: TracerLike;
  readonly #span: Once;
  /** The context the attempts' spans start in: the caller's, with the call's span in it. */
  readonly #context: Api.Context;
  readonly #request: Attributes;
  /** The `error.type` of the latest send that failed, for the call's span. */
  #lastError: string | undefined;

  constructor(api: typeof Api, tracer: TracerLike, secret: ReadonlySet<string>, call: CallView) {
    this.#api = api;
    this.#tracer = tracer;
    this.#request = requestAttributes(call, secret);
    const parent = api.context.active();
    const span = tracer.startSpan(
      `backoff ${nameOf(call)}`,
      { kind: api.SpanKind.INTERNAL, attributes: this.#request },
      parent,
    ) as Api.Span;
    this.#span = new Once(span);
    this.#context = api.trace.setSpan(parent, span);
  }

  observe(event: CallEvent): void {
    const span = this.#span.span;
    if (event.type === 'wait') {
      span.addEvent('backoff.wait', {
        'backoff.reason': event.reason,
        'backoff.delay_ms': event.delay,
        'backoff.retry': event.retry,
      });
    } else if (event.type === 'hold') {
      span.addEvent('backoff.hold', {
        'backoff.reason': event.reason,
        'backoff.delay_ms': event.delay,
        'backoff.hold.key': event.key,
      });
    } else if (event.type === 'resume') {
      // A cut body went on: its continuation's attempts and wait (the call's span may have ended with its headers).
      span.addEvent('backoff.resume', {
        'backoff.reason': 'resume',
        'backoff.delay_ms': event.delay,
        'backoff.attempts': event.attempts,
      });
    } else {
      span.addEvent('backoff.hedge', {
        'backoff.reason': 'hedge',
        'backoff.delay_ms': event.delay,
        'backoff.hedge.copy': event.copy,
      });
    }
  }

  sending(send: SendView, call: CallView): SendWatch {
    const api = this.#api;
    // What the instrumentation's CLIENT span takes from the attempt too.
    const own: Record<string, number> = {};
    if (send.attempt > 1) own['http.request.resend_count'] = send.attempt - 1;
    if (send.copy > 1) own['backoff.hedge.copy'] = send.copy;
    const wire = instrumented(send.transport);
    const span = this.#tracer.startSpan(
      wire ? `backoff ${nameOf(call)} attempt` : nameOf(call),
      { kind: wire ? api.SpanKind.INTERNAL : api.SpanKind.CLIENT, attributes: { ...this.#request, ...own } },
      this.#context,
    ) as Api.Span;
    const once = new Once(span);
    const context = api.trace.setSpan(this.#context, span).setValue(ATTEMPT_ATTRIBUTES, Object.freeze(own));
    // The instrumentation sends its own span's context (undici would send both: it appends headers).
    if (!wire) {
      try {
        api.propagation.inject(context, send.headers, SETTER);
      } catch {
        // A client that cannot change an attempt's headers sends it without the trace's context, not not at all.
      }
    }
    return {
      run: (fn) => api.context.with(context, fn),
      done: (outcome) => {
        if (outcome.type === 'response') span.setAttribute('http.response.status_code', outcome.status);
        const type = errorType(outcome);
        if (type !== undefined) {
          this.#lastError = type;
          span.setAttribute('error.type', type);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        once.end();
      },
    };
  }

  ended(reason: string, last: number | string | undefined, call: CallView): void {
    const span = this.#span.span;
    const attributes: Attributes = {
      'backoff.attempts': call.attempts,
      'backoff.reason': reason,
      'backoff.total_delay_ms': call.totalDelay,
    };
    if (call.hedges > 0) attributes['backoff.hedges'] = call.hedges;
    let type: string | undefined;
    if (typeof last === 'number') {
      attributes['http.response.status_code'] = last;
      if (last >= 400) type = String(last);
    } else if (last !== undefined) {
      type = this.#lastError ?? (last === 'abort' ? 'aborted' : last);
    } else if (reason !== 'success') {
      // Stopped with no attempt's outcome: refused, aborted before or between attempts, a callback that failed.
      type = reason;
    }
    if (type !== undefined) {
      attributes['error.type'] = type;
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    }
    span.setAttributes(attributes);
    this.#span.end();
  }
}

/** Loads `@opentelemetry/api`, or says what to install. */
async function loadApi(): Promise<typeof Api> {
  try {
    return await import('@opentelemetry/api');
  } catch (error) {
    throw new Error(
      'The `tracer` option needs the package `@opentelemetry/api` (1.x), which could not be loaded: install it beside backoff-core (`npm install @opentelemetry/api`), or remove `tracer`.',
      { cause: error },
    );
  }
}

/**
 * What makes the trace's part in a policy's calls, once `@opentelemetry/api` is loaded: `redact` names the query
 * parameters redacted beside the conventions' own.
 */
export async function spans(): Promise<(tracer: TracerLike, redact: ReadonlySet<string>) => Feature> {
  const api = await loadApi();
  return (tracer, redact) => {
    const secret = new Set([...SECRET_PARAMS, ...redact]);
    return { start: (call) => new CallTrace(api, tracer, secret, call) };
  };
}
