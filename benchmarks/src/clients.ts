import type { Agent } from 'node:http';
import axios, {
  type AxiosAdapter,
  type AxiosInstance,
  type CreateAxiosDefaults,
  type InternalAxiosRequestConfig,
} from 'axios';
import { axiosBackoff } from 'axios-backoff';
import axiosRetry from 'axios-retry';
import { type BackoffOptions, withBackoff } from 'backoff-core';
import ky, { isHTTPError, type KyInstance, type Options as KyOptions, type RetryOptions } from 'ky';
import { kyBackoff } from 'ky-backoff';
import * as rax from 'retry-axios';
import type { FetchFn } from './mock-transport.js';

/** Which client a variant is built on: its ratios are taken against that client used bare. */
export type Family = 'axios' | 'ky' | 'fetch';

/** Where a variant's requests go: axios's adapter (or agent), and the fetch that ky and withBackoff call. */
export interface Transport {
  readonly axiosAdapter?: AxiosAdapter | undefined;
  /** A keep-alive agent for axios's http adapter (the loopback server). */
  readonly httpAgent?: Agent | undefined;
  readonly fetch?: FetchFn | undefined;
}

/** One logical GET: resolves with the final status (2xx, or the status of the final HTTP error). */
export interface Client {
  get(url: string): Promise<number>;
}

/** A library in one configuration. */
export interface Variant {
  readonly id: string;
  readonly name: string;
  readonly family: Family;
  /** The configuration, in the library's own terms. */
  readonly config: string;
  /** Retries this configuration makes at most; 0 for a bare client. */
  readonly retries: number;
  /**
   * Builds a fresh client (its own instance, so its own budget). `backoff` is laid over the options of the
   * backoff variants only (the memory measure lifts the budget's reserve so that N requests can all park).
   */
  create(transport: Transport, backoff?: BackoffOptions): Client;
}

function axiosInstance(transport: Transport, extra: CreateAxiosDefaults = {}): AxiosInstance {
  const config: CreateAxiosDefaults = { ...extra };
  if (transport.axiosAdapter) config.adapter = transport.axiosAdapter;
  if (transport.httpAgent) config.httpAgent = transport.httpAgent;
  return axios.create(config);
}

export function axiosClient(instance: AxiosInstance): Client {
  return {
    get: (url) =>
      instance.get(url).then(
        (response) => response.status,
        (error: unknown) => {
          if (axios.isAxiosError(error) && error.response) return error.response.status;
          throw error;
        },
      ),
  };
}

function kyInstance(transport: Transport, extra: KyOptions = {}): KyInstance {
  return transport.fetch ? ky.create({ ...extra, fetch: transport.fetch }) : ky.create(extra);
}

export function kyClient(instance: KyInstance): Client {
  return {
    get: (url) =>
      instance.get(url).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        (error: unknown) => {
          if (isHTTPError(error)) return error.response.status;
          throw error;
        },
      ),
  };
}

export function fetchClient(fetchFn: FetchFn): Client {
  return {
    get: async (url) => {
      const response = await fetchFn(url);
      await response.arrayBuffer();
      return response.status;
    },
  };
}

// Looked up per call, so that a fetch mocked later is used (and the real one reaches the loopback server).
const globalFetch: FetchFn = (input, init) => globalThis.fetch(input, init);

export const axiosBare: Variant = {
  id: 'axios',
  name: 'axios',
  family: 'axios',
  config: 'no retries',
  retries: 0,
  create: (transport) => axiosClient(axiosInstance(transport)),
};

export const axiosWithBackoff: Variant = {
  id: 'axios-backoff',
  name: 'axios + axios-backoff',
  family: 'axios',
  config: 'defaults (retries 3, budget on)',
  retries: 3,
  create: (transport, backoff) => {
    const instance = axiosInstance(transport);
    axiosBackoff(instance, backoff);
    return axiosClient(instance);
  },
};

export const axiosWithBackoffNoBudget: Variant = {
  id: 'axios-backoff-no-budget',
  name: 'axios + axios-backoff',
  family: 'axios',
  config: 'retries 3, budget: false',
  retries: 3,
  create: (transport, backoff) => {
    const instance = axiosInstance(transport);
    axiosBackoff(instance, { ...backoff, budget: false });
    return axiosClient(instance);
  },
};

export const axiosWithAxiosRetry: Variant = {
  id: 'axios-retry',
  name: 'axios + axios-retry',
  family: 'axios',
  config: 'defaults (retries 3, no delay)',
  retries: 3,
  create: (transport) => {
    const instance = axiosInstance(transport);
    axiosRetry(instance);
    return axiosClient(instance);
  },
};

export const axiosWithRetryAxios: Variant = {
  id: 'retry-axios',
  name: 'axios + retry-axios',
  family: 'axios',
  config: 'defaults (retry 3, exponential 100 ms)',
  retries: 3,
  create: (transport) => {
    const instance = axiosInstance(transport);
    rax.attach(instance);
    return axiosClient(instance);
  },
};

export const kyDefaults: Variant = {
  id: 'ky',
  name: 'ky',
  family: 'ky',
  config: 'defaults (built-in retry, limit 2)',
  retries: 2,
  create: (transport) => kyClient(kyInstance(transport)),
};

export const kyNoRetry: Variant = {
  id: 'ky-retry-0',
  name: 'ky',
  family: 'ky',
  config: 'retry: 0',
  retries: 0,
  create: (transport) => kyClient(kyInstance(transport, { retry: 0 })),
};

export const kyRetry3: Variant = {
  id: 'ky-retry-3',
  name: 'ky',
  family: 'ky',
  config: 'retry: 3 (built-in)',
  retries: 3,
  create: (transport) => kyClient(kyInstance(transport, { retry: 3 })),
};

export const kyWithBackoff: Variant = {
  id: 'ky-backoff',
  name: 'ky + ky-backoff',
  family: 'ky',
  config: 'defaults (retries 3, budget on)',
  retries: 3,
  create: (transport, backoff) => kyClient(kyBackoff(kyInstance(transport), backoff)),
};

export const kyWithBackoffNoBudget: Variant = {
  id: 'ky-backoff-no-budget',
  name: 'ky + ky-backoff',
  family: 'ky',
  config: 'retries 3, budget: false',
  retries: 3,
  create: (transport, backoff) => kyClient(kyBackoff(kyInstance(transport), { ...backoff, budget: false })),
};

export const fetchBare: Variant = {
  id: 'fetch',
  name: 'fetch',
  family: 'fetch',
  config: 'no retries',
  retries: 0,
  create: (transport) => fetchClient(transport.fetch ?? globalFetch),
};

export const fetchWithBackoff: Variant = {
  id: 'with-backoff',
  name: 'fetch + withBackoff',
  family: 'fetch',
  config: 'defaults (retries 3, budget on)',
  retries: 3,
  create: (transport, backoff) => fetchClient(withBackoff(transport.fetch ?? globalFetch, backoff)),
};

/**
 * The floor of any adapter-level retry for axios: a synchronous request interceptor that wraps the request's
 * adapter in an async pass-through, as axios-backoff does, with no retry logic at all.
 */
export const axiosPassThrough: Variant = {
  id: 'axios-pass-through',
  name: 'axios + pass-through adapter',
  family: 'axios',
  config: 'floor: empty async adapter wrapper',
  retries: 0,
  create: (transport) => {
    const instance = axiosInstance(transport);
    const getAdapter = axios.getAdapter as (
      setting: unknown,
      config: InternalAxiosRequestConfig,
    ) => AxiosAdapter;
    instance.interceptors.request.use(
      (config) => {
        const adapter = getAdapter(config.adapter ?? axios.defaults.adapter, config);
        config.adapter = async (request) => adapter(request);
        return config;
      },
      null,
      { synchronous: true },
    );
    return axiosClient(instance);
  },
};

/** A pass-through `fetch` around the transport's: the `fetch` option kyBackoff gives ky, doing nothing. */
function passThroughFetch(transport: Transport): NonNullable<KyOptions['fetch']> {
  const send = transport.fetch ?? ((input: Request, init?: RequestInit) => globalThis.fetch(input, init));
  return (input, init) => send(input as Request, init);
}

/** Floor: ky with only a pass-through `fetch` option (no hooks, ky's own retry). */
export const kyFetchFloor: Variant = {
  id: 'ky-floor-fetch',
  name: 'ky + pass-through fetch',
  family: 'ky',
  config: 'floor: pass-through fetch only',
  retries: 2,
  create: (transport) => kyClient(ky.create({ fetch: passThroughFetch(transport) })),
};

/** Floor: a pass-through `fetch` and a `retry.shouldRetry` function (ky's other retry settings its own). */
export const kyShouldRetryFloor: Variant = {
  id: 'ky-floor-should-retry',
  name: 'ky + fetch + retry.shouldRetry',
  family: 'ky',
  config: 'floor: pass-through fetch, retry: { shouldRetry }',
  retries: 2,
  create: (transport) =>
    kyClient(ky.create({ fetch: passThroughFetch(transport), retry: { shouldRetry: () => false } })),
};

/** Floor: ky with one no-op `beforeRequest` hook and nothing else. */
export const kyBeforeRequestFloor: Variant = {
  id: 'ky-floor-before-request',
  name: 'ky + no-op beforeRequest',
  family: 'ky',
  config: 'floor: one no-op beforeRequest hook',
  retries: 2,
  create: (transport) => kyClient(kyInstance(transport, { hooks: { beforeRequest: [() => {}] } })),
};

/** Floor: an empty `hooks` object on the instance (ky 2 merges hooks for every call once an instance has any). */
export const kyEmptyHooksFloor: Variant = {
  id: 'ky-floor-empty-hooks',
  name: 'ky + hooks: {}',
  family: 'ky',
  config: 'floor: an empty hooks object',
  retries: 2,
  create: (transport) => kyClient(kyInstance(transport, { hooks: {} })),
};

/** The three hooks kyBackoff registers (`beforeRequest`, `beforeRetry`, `beforeError`), each doing nothing. */
function noopHooks(): NonNullable<KyOptions['hooks']> {
  return { beforeRequest: [() => {}], beforeRetry: [() => {}], beforeError: [({ error }) => error] };
}

/**
 * What ky-backoff registers with ky, each part doing nothing (a pass-through `fetch`, a `retry` object of its
 * shape, and no-op `beforeRequest`, `beforeRetry` and `beforeError` hooks).
 */
export const kyDesignFloor: Variant = {
  id: 'ky-floor-design',
  name: 'ky + fetch, retry, 3 no-op hooks',
  family: 'ky',
  config: 'floor: fetch, retry object, beforeRequest, beforeRetry, beforeError',
  retries: 3,
  create: (transport) =>
    kyClient(
      ky.create({
        fetch: passThroughFetch(transport),
        // As kyBackoff gives it to ky (ky-retry.ts): every field of ky's set, so that one a request sets shows.
        retry: {
          limit: 3,
          methods: ['get', 'post', 'put', 'patch', 'head', 'delete', 'options', 'trace', 'query'],
          statusCodes: [],
          afterStatusCodes: [],
          maxRetryAfter: null,
          backoffLimit: null,
          jitter: null,
          retryOnTimeout: null,
          delay: () => 0,
          shouldRetry: () => false,
        } as unknown as RetryOptions,
        hooks: noopHooks(),
      }),
    ),
};

/**
 * For the memory measure: ky's own retry with ky-backoff's three hooks registered, doing nothing. What ky
 * itself keeps per call once an instance has hooks (it merges them into every call's options).
 */
export const kyHooksRetryFloor: Variant = {
  id: 'ky-floor-hooks-wait',
  name: 'ky (built-in retry) + no-op hooks',
  family: 'ky',
  config: 'floor: beforeRequest, beforeRetry, beforeError doing nothing',
  retries: 2,
  create: (transport) =>
    kyClient(
      kyInstance(transport, {
        hooks: noopHooks(),
      }),
    ),
};

/** The A/A control: a second, identical bare client. */
export function control(variant: Variant): Variant {
  return { ...variant, id: `${variant.id}-control`, name: `${variant.name} (A/A control)` };
}

/**
 * The spin loop, in WebAssembly: `(func (export "spin") (param $n i32) (param $x i32) (result i32) (loop
 * (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 1103515245)) (i32.const 12345))) (br_if 0
 * (local.tee $n (i32.sub (local.get $n) (i32.const 1))))) (local.get $x))`, n >= 1. Written in JavaScript the
 * same loop ran between V8's tiers from one round to the next once an `await` came between two spins (3 µs of
 * it read as 3 to 17 µs); compiled WebAssembly runs at one speed once tiered up.
 */
const SPIN_WASM =
  '0061736d0100000001070160027f7f017f03020100070801047370696e00000a220120000340200141ed9c998e046c41b9e0006a2101' +
  '200041016b22000d000b20010b';

type Spin = (iterations: number, state: number) => number;
let wasmSpin: Spin | undefined;

// Folded into by every spin, so that the loop's result is used; kept a small integer (31 bits), so that the
// variable never switches between a small integer and a boxed number.
let spun = 0;

/** `iterations` (>= 1) steps of a small integer recurrence: pure CPU, no allocation, no clock read. */
function spin(iterations: number): void {
  if (wasmSpin === undefined) {
    const module = new WebAssembly.Module(Buffer.from(SPIN_WASM, 'hex'));
    wasmSpin = new WebAssembly.Instance(module).exports.spin as Spin;
  }
  spun = wasmSpin(Math.max(1, iterations), spun) & 0x3fffffff;
}

let perUs: number | undefined;

/**
 * Steps of `spin` per µs of CPU on this machine, measured once (20 M steps, by `process.cpuUsage()`, which counts
 * this process's CPU only: other work on the machine does not shorten or stretch it). Spinning on the clock
 * instead would also count the clock reads, which cost µs themselves on some virtual machines.
 */
function stepsPerUs(): number {
  if (perUs === undefined) {
    // The first run lets the loop tier up (Liftoff to TurboFan), the second is timed.
    const steps = 20_000_000;
    spin(steps);
    const before = process.cpuUsage();
    spin(steps);
    const used = process.cpuUsage(before);
    perUs = steps / Math.max(1, used.user + used.system);
  }
  return perUs;
}

/** The CPU work of the calibration control, in µs per request. */
export const CALIBRATION_US = 3;

/** The calibration control: the bare client plus `us` µs of CPU work per request (a spin timed once). */
export function calibration(variant: Variant, us = CALIBRATION_US): Variant {
  return {
    ...variant,
    id: `${variant.id}-calibration`,
    name: `${variant.name} (calibration)`,
    config: `${variant.config}, + ${us} µs of CPU work per request`,
    create: (transport, backoff) => {
      const client = variant.create(transport, backoff);
      const steps = Math.round(stepsPerUs() * us);
      return {
        get: (url) => {
          spin(steps);
          return client.get(url);
        },
      };
    },
  };
}
