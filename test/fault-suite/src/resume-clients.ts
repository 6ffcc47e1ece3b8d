import { Agent } from 'node:http';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, type BackoffResult, getBackoffResult, withBackoff } from 'backoff-core';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';

/** The request's fields that were given, for clients whose types tell an absent field from `undefined`. */
const given = ({ method, body, signal }: ResumeRequest) => ({
  ...(method === undefined ? {} : { method }),
  ...(body === undefined ? {} : { body }),
  ...(signal === undefined ? {} : { signal }),
});

/** What a resume test asks of a request. */
export interface ResumeRequest {
  readonly method?: string;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** A response as every client's caller reads it: its status, its body's chunks, and the result on it. */
export interface ResumedResponse {
  readonly status: number;
  readonly chunks: AsyncIterable<Uint8Array>;
  result(): BackoffResult | undefined;
}

/** One client with backoff, sending to a resume server. */
export interface ResumeClient {
  readonly name: string;
  create(options: BackoffOptions): {
    get(url: string, request?: ResumeRequest): Promise<ResumedResponse>;
    close(): void;
  };
}

async function* webChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) yield chunk.value;
  } finally {
    reader.releaseLock();
  }
}

const chunksOf = (data: unknown): AsyncIterable<Uint8Array> =>
  typeof (data as ReadableStream | null)?.getReader === 'function'
    ? webChunks(data as ReadableStream<Uint8Array>)
    : (data as AsyncIterable<Uint8Array>);

const fetchResponse = (response: Response): ResumedResponse => ({
  status: response.status,
  chunks: chunksOf(response.body),
  result: () => getBackoffResult(response),
});

const withBackoffClient: ResumeClient = {
  name: 'withBackoff (fetch)',
  create(options) {
    const send = withBackoff(fetch, options);
    return {
      get: async (url, request = {}) => fetchResponse(await send(url, given(request))),
      close: () => {},
    };
  },
};

/** ky (any line) with kyBackoff, its own timeout off. */
export const kyClient = (name: string, copy: typeof ky): ResumeClient => ({
  name,
  create(options) {
    const instance = kyBackoff(copy.create({ timeout: false }), options);
    return {
      get: async (url, request = {}) => fetchResponse(await instance(url, given(request))),
      close: () => {},
    };
  },
});

function axiosClient(adapter: 'http' | 'fetch'): ResumeClient {
  return {
    name: `axios (${adapter} adapter, responseType 'stream')`,
    create(options) {
      const agent = adapter === 'http' ? new Agent({ keepAlive: true }) : undefined;
      const instance = axios.create({
        adapter,
        responseType: 'stream',
        ...(agent === undefined ? {} : { httpAgent: agent }),
      });
      axiosBackoff(instance, options);
      return {
        get: async (url, request = {}) => {
          const { body, ...rest } = given(request);
          const response = await instance.request({
            url,
            ...rest,
            ...(body === undefined ? {} : { data: body }),
          });
          return {
            status: response.status,
            chunks: chunksOf(response.data),
            result: () => getBackoffResult(response),
          };
        },
        close: () => agent?.destroy(),
      };
    },
  };
}

/** Every client `resume` works on. */
export const RESUME_CLIENTS: readonly ResumeClient[] = [
  withBackoffClient,
  kyClient('ky', ky),
  kyClient('ky 1', ky1 as unknown as typeof ky),
  axiosClient('fetch'),
  axiosClient('http'),
];

/**
 * Timers that record each wait and fire it at once: the waits asked for, with no real sleep. `before` runs as
 * wait `index` (0-based) starts.
 */
export function recordingTimers(before?: (index: number) => void) {
  const waits: number[] = [];
  return {
    waits,
    timers: {
      setTimeout: (callback: () => void, ms: number) => {
        before?.(waits.length);
        waits.push(ms);
        return setTimeout(callback, 0);
      },
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  };
}

/** Reads every chunk (`onChunk` hears each); the error the body failed with, if it did. */
export async function readAll(
  response: ResumedResponse,
  onChunk?: () => void,
): Promise<{ bytes: Buffer; error?: unknown }> {
  const parts: Uint8Array[] = [];
  try {
    for await (const chunk of response.chunks) {
      parts.push(chunk);
      onChunk?.();
    }
  } catch (error) {
    return { bytes: Buffer.concat(parts), error };
  }
  return { bytes: Buffer.concat(parts) };
}
