/**
 * How a feature plugs into the runner: by the roles it plays in a call, never by its place in a list. A policy's
 * features come from the instances its options were given (`new CircuitBreaker()`, `new Pacer()`, `new
 * BackoffMetrics()`, `new Hedge()`): each makes its `Feature` from the policy's options, so a bundle that never
 * creates one holds none of its code. No feature imports the runner or the call: only this module.
 */

import type { StopReason } from '../decide/reasons.js';
import type { HeadersLike } from '../http/headers.js';
import type { Outcome } from '../http/outcome.js';
import type { ResponseBody } from '../http/response-body.js';
import type { AttemptHeaders, BackoffResult, Held } from './events.js';
import type { TimerProvider } from './sleep.js';

/** What a feature sees of a call. */
export interface CallView {
  /** The request's method, upper-case. */
  readonly method: string;
  readonly url: string | undefined;
  /** The request's headers as the call began (a pacer's `key` may read them). */
  readonly headers: HeadersLike | undefined;
  /** Attempts sent so far. */
  readonly attempts: number;
  /** Time spent in backoff waits so far, in ms. */
  readonly totalDelay: number;
  /** Hedges sent so far (copies beyond the first of each attempt). */
  readonly hedges: number;
  /** Whether the latest attempt's answer came from a hedge. */
  readonly hedgeWon: boolean;
}

/** Something that happened in a call, told to every feature that observes. */
export type CallEvent =
  /** A send is held by a gate (a pacer) for `delay` ms. */
  | { readonly type: 'hold'; readonly delay: number; readonly reason: Held['reason']; readonly key: string }
  /** A backoff wait of `delay` ms before retry `retry`. */
  | { readonly type: 'wait'; readonly delay: number; readonly retry: number; readonly reason: string }
  /** A hedge (copy `copy` of the attempt in flight) is sent, `delay` ms after the previous copy. */
  | { readonly type: 'hedge'; readonly copy: number; readonly delay: number }
  /**
   * The call went on after it ended (`resume`: its body was cut after the headers): one continuation ended, having
   * sent `attempts` more attempts and waited `delay` ms more. Told instead of a second `ended`.
   */
  | { readonly type: 'resume'; readonly attempts: number; readonly delay: number };

/** A feature's part in one call. Every member is optional: a feature plays the roles it has. */
export interface FeatureCall {
  /**
   * Gate, before each send (the first and every retry): a hold to wait first (its slot is reserved by answering),
   * or none. Throws to stop the call (a circuit that opened during the wait, a hold past the deadline). `left` is
   * what remains of the deadline, in ms.
   */
  gate?(left: number): Held | undefined | PromiseLike<Held | undefined>;
  /**
   * A hold this feature asked for is over, before its send: hold again (what held it changed meanwhile: a shared
   * lane paused by another process's 429, its queue stretched to a lower rate), or none. Asked once per hold, the
   * holds it answers included, until it answers none. `left` is the time a hold may still take, in ms: what remains
   * of the deadline or, without one, of the bound on waits a server keeps asking for (twice `maxRetryAfter` from
   * the first hold), so that holds renewed again and again end whatever the feature; throws to stop the call.
   */
  confirm?(left: number): Held | undefined | PromiseLike<Held | undefined>;
  /** A hold this feature asked for was cut short (the caller aborted): give back what it reserved. */
  release?(hold: Held): void;
  /** Whether a copy of the attempt in flight may go now (a hedge): `true` reserves what it needs. */
  admitsCopy?(): boolean;
  /**
   * Observer: an attempt ended with `outcome`, before it is decided. `asked` is the delay an answer of 400 or above
   * asked for. Returns `true` when no retry may go (the origin's circuit is not closed).
   */
  attempted?(
    outcome: Outcome,
    asked: number | undefined,
  ): boolean | undefined | PromiseLike<boolean | undefined>;
  /** Observer: a hold, a wait or a hedge of the call. */
  observe?(event: CallEvent, call: CallView): void;
  /**
   * Watches one send (a copy of an attempt) about to go, its headers final but for what this feature adds (a
   * trace's context): the watch runs the send and hears how it ended.
   */
  sending?(send: SendView, call: CallView): SendWatch | undefined;
  /**
   * The call ended, with the reason it stopped; `last` is the status or error kind of the attempt it stopped on
   * (none when it stopped without one: refused, aborted before it began, or during a wait). Told once.
   */
  ended?(reason: StopReason, last: number | string | undefined, call: CallView): void;
}

/** One send as a feature that watches sends sees it. */
export interface SendView {
  /** The attempt it belongs to, 1-based. */
  readonly attempt: number;
  /** The copy of that attempt: 1, or 2 and up for a hedge. */
  readonly copy: number;
  /** This send's request headers, to add to. */
  readonly headers: AttemptHeaders;
  /** What the client sends on (`Client.transport`), or `undefined` when it does not say. */
  readonly transport: Transport | undefined;
}

/**
 * What a client's requests go out on, for a trace to know whether an HTTP instrumentation makes each request's
 * CLIENT span: `'fetch'` (the runtime's fetch: undici in Node), `'http'` (Node's `http` and `https` modules).
 */
export type Transport = 'fetch' | 'http';

/** A feature's watch over one send. */
export interface SendWatch {
  /** Runs the send (a trace runs it inside its attempt's span, so that HTTP instrumentation nests under it). */
  run<R>(send: () => R): R;
  /** The send ended with `outcome`. */
  done(outcome: Outcome): void;
}

/** A feature of a policy. */
export interface Feature {
  /**
   * A call starts, before anything is sent: the feature's part in it (one object may serve every call). Throws (or
   * rejects with) a `Stopped` to refuse it (an open circuit): nothing is sent. A feature whose state lives in a
   * shared store may answer with a Promise; its `gate` and `attempted` may too.
   */
  start(call: CallView): FeatureCall | undefined | PromiseLike<FeatureCall | undefined>;
}

/** What a feature is made from: the policy's clock, randomness, limits and the statuses it retries. */
export interface FeatureOptions {
  readonly now: () => number;
  readonly random: () => number;
  readonly timers: TimerProvider;
  readonly maxRetryAfter: number;
  readonly statusCodes: ReadonlySet<number>;
  readonly shouldRetryHeaders: boolean;
}

/** Something an option takes that plays roles in the calls of a policy (a breaker, a pacer, metrics, hedging). */
export interface FeatureSource {
  /** The feature for a policy with `options` (called once per policy by `createBackoff`). */
  feature(options: FeatureOptions, others: readonly FeatureSource[]): Feature;
}

/** How one copy of an attempt settled: the client's value (its response), or what it threw. */
export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * How an attempt is sent when the policy hedges (`new Hedge()`): its copies raced. The runner's half of each copy
 * (shaped, keyed, paid for, told) is the strategy's too, so a policy without one holds none of it.
 */
export interface Strategy {
  send<T>(
    call: CallView,
    client: Client<T>,
    attempt: Attempt,
    signal: AbortSignal | undefined,
  ): Promise<Settled<T>>;
}

/** Something the `hedge` option takes: the strategy for a policy with `options`. */
export interface StrategySource {
  strategy(options: FeatureOptions): Strategy;
}

/**
 * Why a call stops other than on an attempt's own outcome, and the error the caller gets for it: what a feature
 * throws to stop a call (an open circuit: `'circuit-open'`; a hold past the deadline: `'deadline'`).
 */
export class Stopped {
  constructor(
    readonly reason: StopReason,
    readonly error: unknown,
  ) {}
}

/** One attempt as the client is about to send it: its headers, read for the key and changed by `beforeAttempt`. */
export interface Attempt {
  /** The headers as they will be sent. */
  readonly headers: HeadersLike | undefined | null;
  /**
   * Sets (a string) or removes (`null`) one header on this attempt's request alone: what `beforeAttempt` and a
   * trace's context change. A client without it cannot have its headers changed.
   */
  header?(name: string, value: string | null): void;
  /** This attempt with headers of its own, for a hedge's copy that `beforeAttempt` shapes apart. */
  copy?(): Attempt;
}

/**
 * What the runner asks of a client (withBackoff's fetch, axios below its adapter, ky through its hooks): how to
 * send an attempt, what its result means in the core's terms, and how the caller gets the end of the call.
 */
export interface Client<T> {
  /**
   * What the client sends on: where an HTTP instrumentation of it is active, the instrumentation's span is each
   * request's CLIENT span and the attempt's own span is INTERNAL. Absent: the attempt's span is the CLIENT span.
   */
  readonly transport?: Transport | undefined;
  /**
   * The next attempt, as the client is about to send it. A client that drives its own loop (ky) answers when it
   * is about to send; the others at once.
   */
  next(): Attempt | Promise<Attempt>;
  /**
   * Sends one copy of `attempt`. With hedging each copy gets a `signal` of its own that follows the caller's:
   * send that copy with it instead of the caller's (a losing copy is aborted through it).
   */
  send(attempt: Attempt, signal?: AbortSignal): Promise<T>;
  /** A sent copy's outcome in the core's terms. */
  outcome(settled: Settled<T>): Outcome;
  /**
   * The outcome the client settles on for the attempt that answered, once its own processing of it ran (ky's
   * hooks may turn a response into a retry, or a failure into a response). By default, `outcome`'s.
   */
  answer?(settled: Settled<T>, outcome: Outcome): Outcome | Promise<Outcome>;
  /** The caller's abort signal, or none. */
  signal(): AbortSignal | undefined;
  /** Lets go of a result that will not reach the caller (an unread body holds its connection). */
  discard?(settled: Settled<T>): void;
  /**
   * The error the caller gets when the call ends other than with an attempt's own outcome (an abort during a
   * wait, an open circuit, a callback's own error), in the client's own terms. By default, that reason itself.
   */
  interrupted?(reason: unknown): unknown;
  /**
   * What the caller gets, with the call's result attached: the last attempt's own value or error, or the error
   * of an interruption. Throw to reject.
   */
  finish(settled: Settled<T>, result: BackoffResult): T;
  /**
   * A response's body as a stream, for `resume`: its status, its headers as received, its stream, and the
   * response with another stream in its place. `undefined` when the body is no stream (read whole already). After
   * the call ended, the runner may send more attempts (`next`, `send`, `answer`, `discard`) with headers set through
   * `Attempt.header`: the continuations of a cut body. Absent: bodies are never resumed.
   */
  body?(value: T): ResponseBody<T> | undefined;
}

/** Puts a generated Idempotency-Key on the outgoing request; returns the headers as they will be sent. */
export type Stamp = (name: string, key: string) => HeadersLike | undefined | null;
