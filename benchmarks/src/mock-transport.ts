import {
  type AxiosAdapter,
  AxiosError,
  AxiosHeaders,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';

/**
 * What the mock server answers to attempt `attempt` (0-based) of logical request `request`: a status, or
 * `'hold'` to leave the attempt pending until `release()`.
 */
export type Script = (request: number, attempt: number) => number | 'hold';

/** The fetch shape ky and withBackoff take. */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Request `index`'s URL: the mock reads the index back from the last path segment. */
export function requestUrl(index: number): string {
  return `http://127.0.0.1:4599/r/${index}`;
}

function indexOf(url: string): number {
  const index = Number(url.slice(url.lastIndexOf('/') + 1));
  if (!Number.isInteger(index) || index < 0) throw new Error(`Not a bench request URL: ${url}`);
  return index;
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 503: 'Service Unavailable' };

/**
 * An in-process server for the amplification and memory measures, as an axios adapter and as a fetch. It counts
 * attempts on the "server" side (per logical request, read from the URL), answers with `script`, and builds the
 * client's own response objects: axios's `AxiosResponse` (rejected with an `AxiosError` exactly as axios's own
 * `settle` does when `validateStatus` fails) and a fetch `Response` with no body. Only the socket is replaced:
 * every library's interceptors, hooks and retry logic run as they would against a real server.
 */
export class MockTransport {
  readonly #script: Script;
  readonly #attempts = new Map<number, number>();
  readonly #held: Array<() => void> = [];
  #releaseStatus = 200;
  totalAttempts = 0;

  constructor(script: Script) {
    this.#script = script;
  }

  /** Attempts the server has seen for logical request `index`. */
  attemptsOf(index: number): number {
    return this.#attempts.get(index) ?? 0;
  }

  /** Logical requests that reached the server at least once. */
  get requestsSeen(): number {
    return this.#attempts.size;
  }

  get heldCount(): number {
    return this.#held.length;
  }

  /** Answers every held attempt with `status`, and every later `'hold'` too. */
  release(status = 200): void {
    this.#releaseStatus = status;
    for (const answer of this.#held.splice(0)) answer();
  }

  #status(url: string): Promise<number> {
    const index = indexOf(url);
    const attempt = this.#attempts.get(index) ?? 0;
    this.#attempts.set(index, attempt + 1);
    this.totalAttempts++;
    const answer = this.#script(index, attempt);
    if (answer !== 'hold') return Promise.resolve(answer);
    return new Promise((resolve) => this.#held.push(() => resolve(this.#releaseStatus)));
  }

  readonly axiosAdapter: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    const status = await this.#status(config.url ?? '');
    const response: AxiosResponse = {
      data: '',
      status,
      statusText: STATUS_TEXT[status] ?? '',
      headers: new AxiosHeaders(),
      config,
      request: {},
    };
    const validate = config.validateStatus;
    if (!validate || validate(status)) return response;
    const code = status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST;
    throw new AxiosError(`Request failed with status code ${status}`, code, config, {}, response);
  };

  readonly fetch: FetchFn = async (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const status = await this.#status(url);
    return new Response(null, { status, statusText: STATUS_TEXT[status] ?? '' });
  };
}

/**
 * A uniform draw in [0, 1) from (seed, request, attempt) alone: the same attempt of the same request fails for
 * every library, whatever order or concurrency they send in. (A 32-bit integer hash, murmur3's finaliser.)
 */
export function draw(seed: number, request: number, attempt: number): number {
  let h = (seed ^ Math.imul(request + 1, 0x9e3779b1) ^ Math.imul(attempt + 1, 0x85ebca77)) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Every attempt fails with probability `rate` (1 = always 503), independently and reproducibly. */
export function randomFailures(rate: number, seed: number): Script {
  return (request, attempt) => (rate >= 1 || draw(seed, request, attempt) < rate ? 503 : 200);
}
