import ky, { HTTPError, NetworkError, TimeoutError } from 'ky';
import ky1, { HTTPError as HTTPError1, TimeoutError as TimeoutError1 } from 'ky-1';
import ky1130, { HTTPError as HTTPError1130, TimeoutError as TimeoutError1130 } from 'ky-1.13.0';
import ky1142, { HTTPError as HTTPError1142, TimeoutError as TimeoutError1142 } from 'ky-1.14.2';
import ky200, {
  HTTPError as HTTPError200,
  NetworkError as NetworkError200,
  TimeoutError as TimeoutError200,
} from 'ky-2.0.0';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * A ky as the tests use it, typed loosely: the four copies have four sets of types, and the tests pass options
 * (`backoff`, `prefixUrl`) that only some of them declare. The type test checks the real types.
 */
export interface LooseKy {
  (
    input: string | URL | Request,
    options?: Record<string, unknown>,
  ): Promise<Response> & {
    json(): Promise<unknown>;
    text(): Promise<string>;
  };
  create(options?: Record<string, unknown>): LooseKy;
  extend(
    options: Record<string, unknown> | ((parent: Record<string, unknown>) => Record<string, unknown>),
  ): LooseKy;
  readonly stop: symbol;
  retry(options?: Record<string, unknown>): unknown;
}

/** One installed ky: its default instance and its own error classes (the ones its callers `instanceof`). */
export interface KyClient {
  readonly name: string;
  readonly major: 1 | 2;
  readonly ky: LooseKy;
  readonly HTTPError: ErrorClass;
  /** ky 2's NetworkError; ky 1 rejects with fetch's own TypeError. */
  readonly NetworkError: ErrorClass | undefined;
  readonly TimeoutError: ErrorClass;
}

const loose = (instance: unknown) => instance as LooseKy;

/** The newest and the oldest supported release of each major, all in one test run. */
export const CLIENTS: readonly KyClient[] = [
  { name: 'ky 2.1.0', major: 2, ky: loose(ky), HTTPError, NetworkError, TimeoutError },
  {
    name: 'ky 2.0.0',
    major: 2,
    ky: loose(ky200),
    HTTPError: HTTPError200,
    NetworkError: NetworkError200,
    TimeoutError: TimeoutError200,
  },
  {
    name: 'ky 1.14.3',
    major: 1,
    ky: loose(ky1),
    HTTPError: HTTPError1,
    NetworkError: undefined,
    TimeoutError: TimeoutError1,
  },
  {
    name: 'ky 1.14.2',
    major: 1,
    ky: loose(ky1142),
    HTTPError: HTTPError1142,
    NetworkError: undefined,
    TimeoutError: TimeoutError1142,
  },
];

/**
 * ky 1.13.0, the oldest supported release: it has no `ky.retry()`, so kyBackoff decides failed responses in
 * `shouldRetry`, and retries one ky does not throw for (`throwHttpErrors: false`) through an error of its own. Only
 * the shared suite runs against it (the ky-specific files test hooks and markers that 1.13 does not have).
 */
export const KY_1_13: KyClient = {
  name: 'ky 1.13.0',
  major: 1,
  ky: loose(ky1130),
  HTTPError: HTTPError1130,
  NetworkError: undefined,
  TimeoutError: TimeoutError1130,
};

/** Only ky 2 has `prefix`; ky 1 calls it `prefixUrl` (and ky 2 throws on that name). */
export function prefixOption(client: KyClient, prefix: string): Record<string, string> {
  return client.major === 2 ? { prefix } : { prefixUrl: prefix };
}
