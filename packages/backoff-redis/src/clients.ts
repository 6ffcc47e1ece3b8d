/**
 * The few commands the store speaks, over either client library: node-redis (`createClient`, `createCluster`) or
 * ioredis (`new Redis`, `new Cluster`). Each runs a script by SHA or by text on one key, so that a Cluster routes
 * it to the node that owns the key.
 */
export interface ScriptClient {
  evalSha(sha: string, keys: string[], args: string[]): Promise<unknown>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  /** `false` while the client is not connected (the store then works locally at once, without waiting). */
  ready(): boolean;
  /** `INFO memory` as text, when the client has it (for the eviction warning). */
  memoryInfo?: (() => Promise<unknown>) | undefined;
  /** Listens to the client's events, when it has them (`'ready'`, `'error'`): the listener's remover. */
  listen?: ((event: 'ready' | 'error', listener: (error?: unknown) => void) => () => void) | undefined;
}

/**
 * A node-redis client or cluster (`createClient()`, `createCluster()` from `redis`), or a client of your own with
 * these two methods.
 */
export interface NodeRedisLike {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** node-redis: `false` while it is not connected. */
  readonly isReady?: boolean;
}

/** An ioredis client or cluster (`new Redis()`, `new Cluster()` from `ioredis`). */
export interface IoRedisLike {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** ioredis: `'ready'` once connected (and authenticated). */
  readonly status: string;
}

/** What `RedisStore` takes as its `client`. */
export type RedisClientLike = NodeRedisLike | IoRedisLike;

/** What both libraries have beyond the scripts, looked up as they are: a client of your own may lack them. */
interface Extras {
  info?: (section: string) => Promise<unknown>;
  on?: (event: string, listener: (error?: unknown) => void) => unknown;
  off?: (event: string, listener: (error?: unknown) => void) => unknown;
}

function listener(client: Extras): ScriptClient['listen'] {
  const { on, off } = client;
  if (typeof on !== 'function' || typeof off !== 'function') return undefined;
  return (event, listener) => {
    on.call(client, event, listener);
    return () => off.call(client, event, listener);
  };
}

function memoryInfo(client: Extras): ScriptClient['memoryInfo'] {
  const { info } = client;
  return typeof info === 'function' ? () => info.call(client, 'memory') : undefined;
}

/** The store's view of `client`, or `undefined` when it is neither library's (nor of their shape). */
export function scriptClient(client: unknown): ScriptClient | undefined {
  if (typeof client !== 'object' || client === null) return undefined;
  const node = client as NodeRedisLike;
  if (typeof node.evalSha === 'function' && typeof node.eval === 'function') {
    return {
      evalSha: (sha, keys, args) => node.evalSha(sha, { keys, arguments: args }),
      eval: (script, keys, args) => node.eval(script, { keys, arguments: args }),
      ready: () => node.isReady !== false,
      memoryInfo: memoryInfo(client as Extras),
      listen: listener(client as Extras),
    };
  }
  const io = client as IoRedisLike;
  if (typeof io.evalsha === 'function' && typeof io.eval === 'function') {
    return {
      evalSha: (sha, keys, args) => io.evalsha(sha, keys.length, ...keys, ...args),
      eval: (script, keys, args) => io.eval(script, keys.length, ...keys, ...args),
      // `wait`: a client made with `lazyConnect` connects on its first command, which the store then sends.
      ready: () => io.status === undefined || io.status === 'ready' || io.status === 'wait',
      memoryInfo: memoryInfo(client as Extras),
      listen: listener(client as Extras),
    };
  }
  return undefined;
}
