import { checkKey, generateIdempotencyKey, isSendableKey } from '../decide/idempotency.js';
import type { StopReason } from '../decide/reasons.js';
import type { CallFacts, Decision } from '../decide/rules.js';
import { type HeadersLike, headerGetter } from '../http/headers.js';
import type { Replacement } from '../http/outcome.js';
import type { ResolvedOptions } from '../options/options.js';
import type { RetryBudget } from './budget.js';
import type { BackoffResult } from './events.js';
import type { CallView, Feature, FeatureCall, Strategy } from './roles.js';

/** One logical request, as the core needs to know it. */
export interface RequestDescription {
  /** @default 'GET' */
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** The request's headers, to find an Idempotency-Key the caller set. */
  readonly headers?: HeadersLike | undefined;
  /** `false` when the body is a one-shot stream that cannot be sent twice. @default true */
  readonly replayable?: boolean | undefined;
}

/** A retry policy's parts, as a call runs on them: validated options, the budget, the features. */
export interface Policy {
  readonly options: ResolvedOptions;
  /** The budget shared by every request of this policy, or `undefined` when budgets are off. */
  readonly budget: RetryBudget | undefined;
  readonly features: readonly Feature[];
  /** How an attempt is sent when the policy hedges. */
  readonly strategy: Strategy | undefined;
}

/** The result of every call that succeeded at its first attempt, the most common one: one frozen object. */
const FIRST_TRY: BackoffResult = Object.freeze({
  attempts: 1,
  totalDelay: 0,
  reason: 'success',
  serverDelay: undefined,
  hedges: 0,
  hedgeWon: false,
});

/**
 * The state of one logical request: what is known of the request, the attempts and waits so far, and the
 * decision on the latest attempt. The runner changes it; the decider reads it; features see it as a `CallView`.
 */
export class Call implements CallView, CallFacts {
  readonly policy: Policy;
  readonly method: string;
  readonly url: string | undefined;
  readonly headers: HeadersLike | undefined;
  /** The method of the request being sent is retried without a key (`methods`); see `replace`. */
  idempotent: boolean;
  readonly replayable: boolean;
  /**
   * The key generated for this request by `idempotencyKey`, when one was needed: the adapter sends it as
   * `idempotencyKeyHeader` on every attempt (the `stamp` given to `runCall`).
   */
  readonly key: string | undefined;
  /** When the call started (only read with a deadline: a clock read per request is not free). */
  readonly started: number;
  attempts = 0;
  totalDelay = 0;
  held = 0;
  hedges = 0;
  hedgeWon = false;
  previousDelay: number | undefined;
  /** The delay the latest answer asked for (400 and above), in ms. */
  asked: number | undefined;
  /** Answers that told this call to wait; the retries that waited as told; when the first told it; when the last
   * server-asked wait's window closes (see `CallFacts`). */
  told = 0;
  serverAsked = 0;
  firstAsked: number | undefined;
  windowCloses: number | undefined;
  /** The decision on the latest attempt (or the reason the call stopped without one). */
  last: Decision | undefined;
  /** The features' parts in this call; gone once they were told that it ended. */
  features: FeatureCall[] | undefined;
  /** Continuations of the body the caller got, after cuts (`resume`). */
  resumes = 0;
  /** The features once the call ended, and what they were told of it: a continuation tells them what it added. */
  #ended: { features: FeatureCall[]; attempts: number; totalDelay: number } | undefined;
  /** The headers of the attempt last sent (`undefined`: not read yet), and whether they carry a usable key. */
  #sent: HeadersLike | undefined | null;
  #keyed: boolean | undefined;
  #sentKey: string | null = null;
  /**
   * The key of what may have reached the server of a non-idempotent request (`null`: something keyless may have),
   * `undefined` while nothing may have: every later send must carry that same key.
   */
  reached: string | null | undefined;
  /** How the attempt before the next one ended, for `beforeAttempt` (kept only when there is one). */
  previous: { readonly status: number | undefined; readonly error: unknown } | undefined;

  constructor(policy: Policy, request: RequestDescription = {}) {
    const { options } = policy;
    this.policy = policy;
    this.method = request.method?.toUpperCase() ?? 'GET';
    this.url = request.url;
    this.headers = request.headers;
    this.replayable = request.replayable !== false;
    this.idempotent = options.methods.has(this.method);
    this.started = options.deadline === undefined ? 0 : options.now();
    // An empty value is no key: a server cannot deduplicate on it.
    const existing = headerGetter(request.headers)(options.idempotencyKeyHeader)?.trim() || undefined;
    // Thrown before anything is sent: a mangled key could make two different requests look like one.
    if (existing !== undefined) {
      checkKey(existing, options.idempotencyKeyHeader);
    }
    const setting = options.idempotencyKey;
    this.key =
      existing === undefined && !this.idempotent && setting !== false
        ? generateIdempotencyKey(setting)
        : undefined;
    this.#keyed = existing !== undefined;
  }

  /**
   * Reports the headers of the attempt as it is actually sent. A non-idempotent request is retried only if its key
   * is on the request that went out, read from there every time: a hook or a client that drops the header makes it
   * keyless. An idempotent request needs no key: its headers are read only if a 409 asks.
   */
  sent(headers: HeadersLike | undefined | null): void {
    this.#sent = headers;
    this.#keyed = undefined;
    if (!this.idempotent) this.#readKey();
  }

  /**
   * The client sends `next` from the next attempt on, in place of the request so far (a hook of its own built it):
   * its method says whether it needs a key, its headers whether it has one (read now, for the decision on the
   * retry that sends it, and again when it is sent). What reached the server before was another request: its key
   * binds this one to nothing.
   */
  replace(next: Replacement): void {
    this.idempotent = this.policy.options.methods.has(next.method.toUpperCase());
    this.reached = undefined;
    this.sent(next.headers);
  }

  /** Whether the attempt last sent carries a usable key. */
  get keyed(): boolean {
    return this.#keyed ?? this.#readKey();
  }

  #readKey(): boolean {
    const key = this.keyOn(this.#sent);
    this.#keyed = key !== null;
    this.#sentKey = key;
    this.#sent = undefined;
    return this.#keyed;
  }

  /** The usable key the attempt last sent carried, `null` when it had none. */
  get sentKey(): string | null {
    return this.keyed ? this.#sentKey : null;
  }

  /** The usable Idempotency-Key on `headers`, `null` when there is none (absent, empty or malformed). */
  keyOn(headers: HeadersLike | undefined | null): string | null {
    const key = headerGetter(headers)(this.policy.options.idempotencyKeyHeader)?.trim();
    return key !== undefined && key !== '' && isSendableKey(key) ? key : null;
  }

  /** What remains of the deadline at `at` (now unless given), in ms (infinite without one). */
  left(at: number = this.policy.options.now()): number {
    const { deadline } = this.policy.options;
    return deadline === undefined ? Number.POSITIVE_INFINITY : deadline - (at - this.started);
  }

  /**
   * Tells every feature, once, that the call ended; after a continuation (see `reopen`), what that continuation
   * added instead.
   */
  end(reason: StopReason, last?: number | string): void {
    const features = this.features;
    this.features = undefined;
    if (features === undefined) return;
    const ended = this.#ended;
    if (ended === undefined) {
      for (const feature of features) feature.ended?.(reason, last, this);
    } else {
      const event = {
        type: 'resume',
        attempts: this.attempts - ended.attempts,
        delay: this.totalDelay - ended.totalDelay,
      } as const;
      for (const feature of features) feature.observe?.(event, this);
    }
    this.#ended = { features, attempts: this.attempts, totalDelay: this.totalDelay };
  }

  /**
   * The call goes on after it ended (its body was cut: `resume`): its features take part again (gates, observers,
   * sends) until the continuation ends.
   */
  reopen(): void {
    this.features ??= this.#ended?.features;
  }

  /** Attempts, waits and the last reason: what the caller's response or error carries (frozen). */
  result(): BackoffResult {
    const last = this.last;
    const plain = last?.reason === 'success' && last.serverDelay === undefined && this.held === 0;
    if (this.attempts === 1 && plain && this.hedges === 0) return FIRST_TRY;
    const result: BackoffResult = {
      attempts: this.attempts,
      totalDelay: this.totalDelay,
      reason: last?.reason ?? 'success',
      serverDelay: last?.serverDelay,
      hedges: this.hedges,
      hedgeWon: this.hedgeWon,
    };
    const more = this.held > 0 ? { ...result, held: this.held } : result;
    return Object.freeze(this.resumes > 0 ? { ...more, resumes: this.resumes } : more);
  }
}
