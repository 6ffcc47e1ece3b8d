import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { withBackoff } from 'backoff-core';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import { immediateTimers } from './arbitraries.ts';

/** How one call with a per-request override went: requests the transport got, and the status or the error. */
export interface OverrideOutcome {
  readonly sent: number;
  readonly status?: number;
  readonly error?: unknown;
}

/** A client whose transport is a stub (no socket) that counts what it is handed and answers 200. */
export interface OverrideTarget {
  readonly name: string;
  send(override: unknown): Promise<OverrideOutcome>;
}

const URL = 'http://127.0.0.1:9/override';
/** No budget (the fuzz makes many calls), and waits that end at once: an override may make the call retry. */
const OPTIONS = { budget: false, timers: immediateTimers } as const;

function counted(send: (override: unknown, count: () => void) => Promise<number>): OverrideTarget['send'] {
  return async (override) => {
    let sent = 0;
    try {
      const status = await send(override, () => {
        sent++;
      });
      return { sent, status };
    } catch (error) {
      return { sent, error };
    }
  };
}

type LooseKy = ((input: string, options?: Record<string, unknown>) => Promise<Response>) & {
  create(options: Record<string, unknown>): LooseKy;
};

function kyTarget(name: string, base: LooseKy): OverrideTarget {
  let count = () => {};
  const api = kyBackoff(
    base.create({
      fetch: async () => {
        count();
        return new Response('ok', { status: 200 });
      },
    }) as never,
    OPTIONS,
  ) as unknown as LooseKy;
  return {
    name,
    send: counted(async (override, onSend) => {
      count = onSend;
      const response = await api(URL, { backoff: override });
      await response.text();
      return response.status;
    }),
  };
}

function axiosTarget(): OverrideTarget {
  let count = () => {};
  const instance = axios.create({
    adapter: async (config) => {
      count();
      return { data: 'ok', status: 200, statusText: 'OK', headers: {}, config, request: {} };
    },
  });
  axiosBackoff(instance, OPTIONS);
  return {
    name: 'axios config.backoff',
    send: counted(async (override, onSend) => {
      count = onSend;
      return (await instance.get(URL, { backoff: override as never })).status;
    }),
  };
}

function withBackoffTarget(): OverrideTarget {
  let count = () => {};
  const fetchWithBackoff = withBackoff(async () => {
    count();
    return new Response('ok', { status: 200 });
  }, OPTIONS);
  return {
    name: 'withBackoff init.backoff',
    send: counted(async (override, onSend) => {
      count = onSend;
      const response = await fetchWithBackoff(URL, { backoff: override as never });
      await response.text();
      return response.status;
    }),
  };
}

/** Every client's per-request override, each with its stub transport. */
export const OVERRIDE_TARGETS: readonly OverrideTarget[] = [
  axiosTarget(),
  kyTarget('ky 2 backoff option', ky as unknown as LooseKy),
  kyTarget('ky 1 backoff option', ky1 as unknown as LooseKy),
  withBackoffTarget(),
];
