import { createHash } from 'node:crypto';
import { CircuitBreaker, Pacer } from 'backoff-core';
import { type RedisClientLike, type ScriptClient, scriptClient } from './clients.js';
import { CHECK_SCRIPT, CIRCUIT_SCRIPT, PACE_SCRIPT } from './scripts.js';

export type { IoRedisLike, NodeRedisLike, RedisClientLike } from './clients.js';

/** Passed to `onFallback`: why the store paces and breaks locally for now. */
export interface RedisFallbackEvent {
  /** What failed: the error Redis answered with, or a timeout's. */
  readonly error: unknown;
  /**
   * Set when only this Redis key is kept locally: it holds a value this store cannot read (another writer's).
   * Every other key stays shared, and the key is shared again once it is deleted or expires.
   */
  readonly key?: string | undefined;
}

/** Options of a `RedisStore`. */
export interface RedisStoreOptions {
  /**
   * A node-redis client or cluster (`createClient()`, `createCluster()`) or an ioredis one (`new Redis()`,
   * `new Cluster()`), yours to connect and close. It need not be connected yet: until it is, the store works
   * locally.
   */
  client: RedisClientLike;
  /**
   * The start of every key the store writes: one per app (or per quota), so that apps sharing one Redis keep
   * apart. The keys are `${prefix}pace:${key}` and `${prefix}circuit:${origin}`.
   * @default 'backoff:'
   */
  prefix?: string | undefined;
  /**
   * The longest an operation waits for Redis, in ms: past its wait, the store paces and breaks locally (in this
   * process's memory) until Redis answers again. The wait adapts to the round trips measured, as TCP's does (the
   * smoothed round trip plus four times its variation), between `minTimeout` and this.
   * @default 1000
   */
  timeout?: number | undefined;
  /**
   * The shortest wait for Redis, in ms (`timeout` when that is lower): raise it where a busy host makes a healthy
   * Redis answer slowly now and then, and a fallback is worse than a wait.
   * @default 250
   */
  minTimeout?: number | undefined;
  /** How often a probe asks whether Redis is back while the store works locally, in ms. @default 500 */
  probeInterval?: number | undefined;
  /**
   * Called once when Redis stops answering (the store works locally from then on), and once for each key that
   * holds a value the store cannot read (`event.key`: only that key is kept locally).
   * @default undefined
   */
  onFallback?: ((event: RedisFallbackEvent) => void) | undefined;
  /** Called once when Redis answers again (the store is shared again). @default undefined */
  onResume?: (() => void) | undefined;
  /**
   * Whose clock the scripts run by: `'redis'` (its `TIME`: every process agrees on one clock) or `'caller'`
   * (the `now` each operation is given: for tests on a virtual clock).
   * @default 'redis'
   */
  clock?: 'redis' | 'caller' | undefined;
}

/** What `store.stats()` answers: how often the store fell back, and how long it waits for Redis now. */
export interface RedisStoreStats {
  /** Times the store stopped waiting for Redis and went local (not counting keys holding another writer's value). */
  readonly fallbacks: number;
  /** Times Redis answered again after a fallback (the store shared again). */
  readonly resumes: number;
  /** Answers that came after the store had stopped waiting for them: each a fallback a longer wait would have spared. */
  readonly lateAnswers: number;
  /** How long an operation waits for Redis now, in ms (adapted to the round trips measured). */
  readonly timeout: number;
  /** The smoothed round trip measured, in ms (`undefined` before the first answer). */
  readonly roundTrip: number | undefined;
}

/** What `store.check()` answers: Redis answered (`'shared'`), or the store works locally for now (`'local'`). */
export type RedisStoreCheck = 'shared' | 'local';

/** The shortest wait for Redis by default: below it, a busy event loop alone would make the store fall back. */
const FLOOR = 250;
/**
 * Redis's answers that mean the client's credentials or ACL are wrong: no wait makes them right. (A command a
 * script runs that the ACL denies is an ERR naming no command.)
 */
const REFUSED = /\b(WRONGPASS|NOAUTH|NOPERM)\b|user executing the script can't/;

/** Warned once per process: every store on one Redis would say the same. */
let evictionWarned = false;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
/** A number as Lua reads it: Infinity included. */
const arg = (value: number | undefined): string =>
  value === undefined ? '' : Number.isFinite(value) ? String(value) : value > 0 ? '1e999' : '-1e999';

/**
 * A reservation from a script's answer: `[now, 'go', ticket]`, or a hold's or a refusal's fields (a hold's lane
 * last).
 */
function reservation(answer: string[]): Pacer.StoreReservation {
  const [, type, ticket, slot, delay, reason, limit] = answer;
  if (type === 'go') return Number(ticket);
  if (type === 'refused') {
    return {
      type: 'refused',
      delay: Number(delay),
      reason: reason as Pacer.StoreRefusal['reason'],
      limit: limit as Pacer.StoreRefusal['limit'],
    };
  }
  return {
    type: 'held',
    ticket: Number(ticket),
    slot: Number(slot),
    delay: Number(delay),
    reason: reason as Pacer.StoreHold['reason'],
  };
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** Redis refused the client: what to fix. */
function refusal(error: unknown): Error {
  return new Error(
    `Redis refused the store's client: ${String((error as Error)?.message ?? error)}. Check the user and password in the client's options (\`url: 'redis://user:password@host:6379'\`), and that its ACL allows what the store runs: \`+evalsha +eval +get +set +time ~<prefix>*\`.`,
    { cause: error },
  );
}

const CHECK_SHA = sha1(CHECK_SCRIPT);

function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(
    `Expected \`${name}\` to be ${expected}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`,
  );
}

/**
 * One quota and one view of each backend across processes: a store for the `Pacer` (`store.pacer`) and the
 * `CircuitBreaker` (`store.breaker`) in Redis. Each operation is one atomic round trip (a Lua script run by
 * EVALSHA, on Redis's clock); keys expire once idle. When Redis is slow or gone, every operation falls back to
 * this process's memory within its wait (adapted to the round trips measured, 1000 ms at most by default),
 * `onFallback` is told once, and a probe every `probeInterval` brings the store back (`onResume`) without a
 * restart.
 */
export class RedisStore {
  /** The store for `new Pacer({ store })`. */
  readonly pacer: Required<Pacer.Store>;
  /** The store for `new CircuitBreaker({ store })`. */
  readonly breaker: CircuitBreaker.Store;
  readonly #client: ScriptClient;
  readonly #prefix: string;
  /** The longest wait for Redis (the `timeout` option), and the shortest. */
  readonly #cap: number;
  readonly #floor: number;
  /** The smoothed round trip and its variation, in ms (RFC 6298's SRTT and RTTVAR). */
  #srtt: number | undefined;
  #rttvar = 0;
  #fallbacks = 0;
  #resumes = 0;
  #late = 0;
  readonly #probeInterval: number;
  readonly #onFallback: ((event: RedisFallbackEvent) => void) | undefined;
  readonly #onResume: (() => void) | undefined;
  readonly #server: string;
  /** Working locally since Redis stopped answering. */
  #down = false;
  #probe: ReturnType<typeof setTimeout> | undefined;
  readonly #localPaces = new Pacer.MemoryStore({ shared: true });
  readonly #localCircuits = new CircuitBreaker.MemoryStore();
  /** Holds reserved locally: given back locally. */
  readonly #localHolds = new WeakSet<Pacer.StoreHold>();
  /** Holds reserved in Redis, and the lane each was reserved in. */
  readonly #remoteHolds = new WeakMap<Pacer.StoreHold, string>();
  /** Keys holding a value the store cannot read, each told once (kept locally until they are readable again). */
  readonly #unreadable = new Set<string>();

  constructor(options: RedisStoreOptions) {
    if (typeof options !== 'object' || options === null)
      fail('options', 'an object with a `client`', options);
    const {
      prefix = 'backoff:',
      timeout = 1000,
      minTimeout = FLOOR,
      probeInterval = 500,
      clock = 'redis',
    } = options;
    const client = scriptClient(options.client);
    if (client === undefined) {
      fail(
        'client',
        'a node-redis client (createClient() from `redis`), an ioredis one (new Redis() from `ioredis`), or an object with `evalSha` and `eval` as node-redis has them',
        options.client,
      );
    }
    if (typeof prefix !== 'string') fail('prefix', 'a string', prefix);
    if (!(timeout > 0 && Number.isFinite(timeout))) fail('timeout', 'a number of ms above 0', timeout);
    if (!(minTimeout > 0 && Number.isFinite(minTimeout))) {
      fail('minTimeout', 'a number of ms above 0', minTimeout);
    }
    if (!(probeInterval > 0 && Number.isFinite(probeInterval))) {
      fail('probeInterval', 'a number of ms above 0', probeInterval);
    }
    if (clock !== 'redis' && clock !== 'caller') fail('clock', "'redis' or 'caller'", clock);
    this.#client = client;
    this.#prefix = prefix;
    this.#cap = timeout;
    this.#floor = Math.min(minTimeout, timeout);
    this.#probeInterval = probeInterval;
    this.#onFallback = options.onFallback;
    this.#onResume = options.onResume;
    this.#server = clock === 'redis' ? '1' : '0';
    this.pacer = this.#pacerStore();
    this.breaker = this.#circuitStore();
  }

  /** Whether the store works locally for now (Redis slow or gone). */
  get local(): boolean {
    return this.#down;
  }

  /** How often the store fell back and came back, and how long it waits for Redis now. */
  stats(): RedisStoreStats {
    return {
      fallbacks: this.#fallbacks,
      resumes: this.#resumes,
      lateAnswers: this.#late,
      timeout: this.#wait(),
      roundTrip: this.#srtt,
    };
  }

  /**
   * Asks Redis, once, whether the store can share through it: `'shared'` when it ran the store's commands,
   * `'local'` when it is not reachable within the store's wait (the store paces locally, and shares again once it
   * is). Rejects when Redis refuses the client (a wrong password, an ACL without a command the store needs): no
   * wait would make that right. Warns (`BACKOFF_REDIS_EVICTION`) when Redis evicts keys under memory pressure.
   */
  async check(): Promise<RedisStoreCheck> {
    const client = this.#client;
    if (!client.ready()) {
      const refused = await this.#connected();
      if (refused !== undefined) throw refusal(refused);
      if (!client.ready()) {
        this.#fallBack(new Error('The Redis client is not connected.'));
        return 'local';
      }
    }
    try {
      await this.#within(this.#checkScript(true));
    } catch (error) {
      if (REFUSED.test(String((error as Error)?.message))) throw refusal(error);
      this.#fallBack(error);
      return 'local';
    }
    this.#resume();
    await this.#evictionCheck();
    return 'shared';
  }

  /** Stops the probe that looks for Redis while the store works locally (the client is yours to close). */
  close(): void {
    clearTimeout(this.#probe);
    this.#probe = undefined;
  }

  /** The wait for Redis now: the measured round trip plus four times its variation, within the floor and cap. */
  #wait(): number {
    if (this.#srtt === undefined) return this.#cap;
    return Math.min(this.#cap, Math.max(this.#floor, Math.ceil(this.#srtt + 4 * this.#rttvar)));
  }

  /** One round trip measured (RFC 6298, 2.2 and 2.3). */
  #measure(ms: number): void {
    if (this.#srtt === undefined) {
      this.#srtt = ms;
      this.#rttvar = ms / 2;
      return;
    }
    this.#rttvar = 0.75 * this.#rttvar + 0.25 * Math.abs(this.#srtt - ms);
    this.#srtt = 0.875 * this.#srtt + 0.125 * ms;
  }

  /**
   * `operation`'s answer within the wait, else a TimeoutError. Each answer's round trip is measured, a late one's
   * too (it says the wait was too short).
   */
  async #within<T>(operation: Promise<T>, late?: (answer: T) => void): Promise<T> {
    const wait = this.#wait();
    const start = performance.now();
    let timedOut = false;
    const remote = operation.then((answer) => {
      this.#measure(performance.now() - start);
      if (timedOut) {
        this.#late++;
        late?.(answer);
      }
      return answer;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // Past the wait, one more turn for I/O: after a busy stretch of this process, timers run before the
      // reply that came meanwhile is read, and a late loop is no slow Redis.
      timer = setTimeout(
        () =>
          setImmediate(() => {
            timedOut = true;
            reject(new TimeoutError(`Redis did not answer within ${wait} ms.`));
          }),
        wait,
      );
    });
    try {
      return await Promise.race([remote, timeout]);
    } catch (error) {
      remote.catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `script` by SHA; by its text when Redis does not have it (a restart, SCRIPT FLUSH, a Cluster node). */
  async #script(script: string, sha: string, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(sha, keys, args);
    } catch (error) {
      // EVAL, not SCRIPT LOAD: it goes to the node that owns the key, and leaves the script there for next time.
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return await this.#client.eval(script, keys, args);
    }
  }

  /** The check script on the store's own key; `text`: by its text too, so that an ACL without EVAL shows. */
  async #checkScript(text: boolean): Promise<unknown> {
    const keys = [`${this.#prefix}check`];
    if (text) await this.#client.eval(CHECK_SCRIPT, keys, []);
    return this.#script(CHECK_SCRIPT, CHECK_SHA, keys, []);
  }

  /**
   * Waits, at most the store's wait, for a client that is not connected yet: `undefined` once it is (or the wait
   * is over), or the error with which Redis refused it.
   */
  async #connected(): Promise<unknown> {
    const listen = this.#client.listen;
    if (listen === undefined) return undefined;
    const removers: Array<() => void> = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise<unknown>((resolve) => {
        removers.push(listen('ready', () => resolve(undefined)));
        removers.push(
          listen('error', (error) => {
            if (REFUSED.test(String((error as Error)?.message))) resolve(error);
          }),
        );
        timer = setTimeout(() => resolve(undefined), this.#cap);
      });
    } finally {
      clearTimeout(timer);
      for (const remove of removers) remove();
    }
  }

  /** Warns once when Redis may evict the store's keys; INFO may be refused by an ACL: then nothing is said. */
  async #evictionCheck(): Promise<void> {
    if (evictionWarned || this.#client.memoryInfo === undefined) return;
    let info: string;
    try {
      info = String(await this.#within(this.#client.memoryInfo()));
    } catch {
      return;
    }
    const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
    const limit = Number(/^maxmemory:(\d+)/m.exec(info)?.[1] ?? 0);
    if (policy === undefined || policy === 'noeviction' || limit === 0 || evictionWarned) return;
    evictionWarned = true;
    process.emitWarning(
      `Redis evicts keys when it reaches maxmemory (maxmemory-policy ${policy}, maxmemory ${limit} bytes): the store's pace and circuit keys (all with a TTL) may be dropped without a word, and with them a learnt quota or an open circuit. Give the store a Redis with maxmemory-policy noeviction (writes then fail, and the store paces locally, saying so).`,
      { code: 'BACKOFF_REDIS_EVICTION' },
    );
  }

  /**
   * Runs `script` on `key` within the wait: its answer, or `undefined` when the store works locally (for now,
   * or for this key: its value is another writer's). An answer that comes after the wait goes to `late` (Redis
   * ran the operation after all, once it was back).
   */
  async #run(
    script: string,
    sha: string,
    key: string,
    args: string[],
    late?: (answer: string[]) => void,
  ): Promise<string[] | undefined> {
    if (this.#down) return undefined;
    if (!this.#client.ready()) {
      this.#fallBack(new Error('The Redis client is not connected.'));
      return undefined;
    }
    let answer: string[];
    try {
      answer = (await this.#within(this.#script(script, sha, [key], args), late as never)) as string[];
    } catch (error) {
      this.#fallBack(error);
      return undefined;
    }
    return this.#readable(key, answer) ? answer : undefined;
  }

  /** Whether `key`'s answer is its value's (else it is another writer's: the key is kept locally, told once). */
  #readable(key: string, answer: string[]): boolean {
    const unreadable = this.#unreadable;
    if (answer[1] !== 'unreadable') {
      if (unreadable.size > 0) unreadable.delete(key);
      return true;
    }
    // Bounded: past 1,000 such keys, a key may be told again.
    if (unreadable.has(key) || unreadable.size >= 1000) return false;
    unreadable.add(key);
    const error = new Error(
      `The Redis key "${key}" holds a value this store did not write (another app's?): its state is kept in this process's memory until the key is deleted or expires; every other key stays shared. Give this store a \`prefix\` of its own, or delete the key.`,
    );
    this.#tell(this.#onFallback, { error, key });
    return false;
  }

  #fallBack(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.#fallbacks++;
    this.#schedule();
    this.#tell(this.#onFallback, { error });
  }

  #resume(): void {
    if (!this.#down) return;
    clearTimeout(this.#probe);
    this.#probe = undefined;
    this.#down = false;
    this.#resumes++;
    this.#tell(this.#onResume);
  }

  /** Calls a listener: its failure is its own, the store goes on. */
  #tell<T extends unknown[]>(listener: ((...args: T) => void) | undefined, ...args: T): void {
    try {
      listener?.(...args);
    } catch {
      // Nothing to do: the store works on either way.
    }
  }

  #schedule(): void {
    this.#probe = setTimeout(() => this.#ping(), this.#probeInterval);
    this.#probe.unref?.();
  }

  /** The probe: the check script, which needs no command beyond those the store runs (no PING in its ACL). */
  async #ping(): Promise<void> {
    try {
      if (!this.#client.ready()) throw new Error('not connected');
      await this.#within(this.#checkScript(false));
    } catch {
      if (this.#probe !== undefined) this.#schedule();
      return;
    }
    if (this.#probe === undefined) return;
    this.#resume();
  }

  #pacerStore(): Required<Pacer.Store> {
    const local = this.#localPaces;
    const holds = this.#localHolds;
    const lanes = this.#remoteHolds;
    const sha = sha1(PACE_SCRIPT);
    const key = (k: string) => `${this.#prefix}pace:${k}`;
    /** A hold Redis answered after the caller went on without it: its slot goes back to the lane it is in. */
    const giveBack = (k: string, now: number) => (late: string[]) => {
      if (late[1] !== 'held') return;
      const args = ['release', arg(now), this.#server, late[3] ?? '', late[7] ?? ''];
      // Through #script: a node that lacks the script (a Cluster node after a flush) is sent it whole.
      this.#script(PACE_SCRIPT, sha, [key(k)], args).catch(() => {});
    };
    const run = (k: string, op: string, now: number, args: string[]) =>
      this.#run(
        PACE_SCRIPT,
        sha,
        key(k),
        [op, arg(now), this.#server, ...args],
        op === 'reserve' || op === 'confirm' ? giveBack(k, now) : undefined,
      );
    /** A reservation Redis answered: a hold is marked with the lane it is in. */
    const shared = (answer: string[]): Pacer.StoreReservation => {
      const reserved = reservation(answer);
      if (typeof reserved !== 'number' && reserved.type === 'held') lanes.set(reserved, answer[7] ?? '');
      return reserved;
    };
    const reserve = async (
      k: string,
      now: number,
      within: number,
      r: number,
      limits: Pacer.StoreLimits,
    ): Promise<Pacer.StoreReservation | undefined> => {
      const answer = await run(k, 'reserve', now, [
        arg(within),
        arg(r),
        arg(limits.maxRetryAfter),
        arg(limits.stated),
      ]);
      return answer === undefined ? undefined : shared(answer);
    };
    return {
      reserve: async (k, now, within, random, limits) => {
        const r = random();
        const reserved = await reserve(k, now, within, r, limits);
        if (reserved !== undefined) return reserved;
        const own = local.reserve(k, now, within, () => r, limits);
        if (typeof own !== 'number' && own.type === 'held') holds.add(own);
        return own;
      },
      confirm: async (k, hold, now, within, random, limits) => {
        const r = random();
        if (holds.has(hold)) {
          // Held locally while Redis was gone, and Redis is back: the send takes its place in the shared pace,
          // one queue again for every process.
          if (this.#down) return local.confirm(k, hold, now, within, () => r, limits);
          return (await reserve(k, now, within, r, limits)) ?? hold.ticket;
        }
        // Held in Redis: its slot is still in the lane there (a stall, a fallback, Redis back with its data), so it
        // is confirmed as any other; the script queues it anew only in a lane made since (a restart, an expiry).
        // While Redis is gone, it goes when its slot comes.
        if (this.#down) return hold.ticket;
        const answer = await run(k, 'confirm', now, [
          arg(hold.ticket),
          arg(within),
          arg(r),
          arg(limits.maxRetryAfter),
          arg(hold.slot),
          hold.reason,
          lanes.get(hold) ?? '',
          arg(limits.stated),
        ]);
        // Redis gone meanwhile: the send goes, as it would have without a pause learnt.
        return answer === undefined ? hold.ticket : shared(answer);
      },
      release: async (k, hold, now) => {
        if (holds.has(hold)) return local.release(k, hold, now);
        await run(k, 'release', now, [arg(hold.slot), lanes.get(hold) ?? '']);
      },
      learn: async (k, answer, now, limits) => {
        const done = await run(k, 'learn', now, [
          arg(answer.status),
          arg(answer.ticket),
          arg(answer.sentAt),
          arg(answer.serverDelay),
          arg(answer.remaining),
          arg(answer.reset),
          arg(answer.interval),
          arg(limits.stated),
          '1',
        ]);
        if (done === undefined) local.learn(k, answer, now, limits);
      },
      read: async (k, now) => {
        const answer = await run(k, 'read', now, []);
        return answer === undefined ? local.read(k, now) : Number(answer[1]);
      },
    };
  }

  #circuitStore(): CircuitBreaker.Store {
    const local = this.#localCircuits;
    const sha = sha1(CIRCUIT_SCRIPT);
    const rulesOf = (rules: CircuitBreaker.StoreRules) => [
      rules.failureRatio === false ? '' : arg(rules.failureRatio),
      arg(rules.minimumCalls),
      arg(rules.window),
      rules.consecutiveFailures === false ? '' : arg(rules.consecutiveFailures),
      arg(rules.breakDuration),
      arg(rules.maxBreakDuration),
      arg(rules.halfOpenProbes),
    ];
    const run = (origin: string, op: string, now: number, args: string[]) =>
      this.#run(CIRCUIT_SCRIPT, sha, `${this.#prefix}circuit:${origin}`, [
        op,
        arg(now),
        this.#server,
        ...args,
      ]);
    /** A transition from the script's answer at `from`, on the caller's clock (`shift`: Redis's time less it). */
    const transition = (
      answer: string[],
      from: number,
      shift: number,
    ): CircuitBreaker.StoreTransition | undefined =>
      answer.length <= from
        ? undefined
        : {
            from: answer[from] as CircuitBreaker.StoreTransition['from'],
            to: answer[from + 1] as CircuitBreaker.StoreTransition['to'],
            at: Number(answer[from + 2]) - shift,
            openUntil: answer[from + 3] === '' ? undefined : Number(answer[from + 3]) - shift,
          };
    return {
      admit: async (origin, now, rules) => {
        const answer = await run(origin, 'admit', now, rulesOf(rules));
        if (answer === undefined) return local.admit(origin, now, rules);
        const shift = Number(answer[0]) - now;
        return {
          admitted: answer[1] === '1',
          probe: answer[2] === '1',
          nextProbeIn: Number(answer[3]),
          change: transition(answer, 4, shift),
        };
      },
      record: async (origin, now, failed, serverDelay, probe, rules) => {
        const answer = await run(origin, 'record', now, [
          ...rulesOf(rules),
          failed === undefined ? '' : failed ? '1' : '0',
          arg(serverDelay),
          probe ? '1' : '0',
        ]);
        if (answer === undefined) return local.record(origin, now, failed, serverDelay, probe, rules);
        return transition(answer, 1, Number(answer[0]) - now);
      },
      read: async (origin, now) => {
        // The rules are not read by 'read': placeholders keep the arguments in place.
        const answer = await run(origin, 'read', now, ['', '1', '10', '', '1', '1', '1']);
        if (answer === undefined) return local.read(origin);
        if (answer.length === 1) return undefined;
        const shift = Number(answer[0]) - now;
        const at = (i: number) => Number(answer[i]);
        const starts: number[] = [];
        const calls: number[] = [];
        const failures: number[] = [];
        for (let i = 0; i < 10; i++) {
          starts.push(at(8 + i * 3) - shift);
          calls.push(at(9 + i * 3));
          failures.push(at(10 + i * 3));
        }
        return {
          state: answer[1] as CircuitBreaker.StoreCircuit['state'],
          openUntil: at(2) - shift,
          opens: at(3),
          consecutive: at(4),
          probes: at(5),
          successes: at(6),
          restored: answer[7] === '1',
          starts,
          calls,
          failures,
        };
      },
      // Snapshots are of one process's memory: a shared store's circuits live in Redis.
      entries: () => local.entries(),
      replace: (circuits) => {
        if (circuits.size > 0) {
          throw new TypeError(
            'Expected no `initialState` with a RedisStore: the circuits live in Redis, shared by every process. Leave initialState out.',
          );
        }
      },
    };
  }
}
