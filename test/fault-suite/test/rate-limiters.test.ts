import type { AddressInfo } from 'node:net';
import fastifyRateLimit from '@fastify/rate-limit';
import { parseRetryAfter } from 'backoff-core';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The timing headers of real rate limiters, live on 127.0.0.1. Each limiter allows 3 requests
 * per 2 s window; the 4th gets its 429, whose headers are read as the core reads them: with Retry-After, and with
 * only the limiter's RateLimit fields (Retry-After and the legacy epoch X-RateLimit-* removed), which must give
 * the same wait the fields state, read here independently of the core.
 */

/** The 4th response's headers, as fetch gives them (lower-case names). */
async function fourth(url: string): Promise<{ status: number; headers: Record<string, string> }> {
  let response: Response | undefined;
  for (let i = 0; i < 4; i++) {
    response = await fetch(url);
    await response.arrayBuffer();
  }
  const last = response as Response;
  return { status: last.status, headers: Object.fromEntries(last.headers) };
}

/** The seconds a server's RateLimit fields state, read with a pattern per draft (not the core's parser). */
function statedSeconds(headers: Record<string, string>): number {
  const combined = headers.ratelimit;
  const match =
    (combined && /(?:^|,)\s*remaining=0,\s*reset=(\d+)/.exec(combined)) ||
    (combined && /;\s*r=0;\s*t=(\d+)/.exec(combined));
  if (match) return Number(match[1]);
  const reset = headers['ratelimit-reset'] ?? headers['x-ratelimit-reset'];
  if (reset === undefined) throw new Error(`no rate-limit fields in ${JSON.stringify(headers)}`);
  return Number(reset);
}

function withoutRetryAfter(headers: Record<string, string>, legacyEpoch: boolean): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => name !== 'retry-after' && !(legacyEpoch && name.startsWith('x-ratelimit-')),
    ),
  );
}

async function expectRead(headers: Record<string, string>, legacyEpoch: boolean): Promise<void> {
  const seconds = statedSeconds(withoutRetryAfter(headers, legacyEpoch));
  // The whole window is left: the limiters' clock stood still (see the tests' fake Date).
  expect(seconds).toBe(2);
  expect(parseRetryAfter(headers)).toBe(Number(headers['retry-after']) * 1000);
  expect(parseRetryAfter(withoutRetryAfter(headers, legacyEpoch))).toBe(seconds * 1000);
}

describe('real rate limiters on 127.0.0.1', () => {
  // The limiters read the time with Date.now(): a fake Date that stands still keeps all four requests in one
  // window, and its reset exact, however slowly a busy machine serves them. The sockets and timers stay real.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 11, 2, 12) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['draft-6', 'draft-7', 'draft-8'] as const)(
    'express-rate-limit, standardHeaders %s',
    async (draft) => {
      const app = express();
      app.use(rateLimit({ windowMs: 2000, limit: 3, standardHeaders: draft, legacyHeaders: true }));
      app.get('/', (_request, response) => {
        response.send('ok');
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const { status, headers } = await fourth(`http://127.0.0.1:${port}/`);
        expect(status).toBe(429);
        if (draft === 'draft-6') expect(headers['ratelimit-remaining']).toBe('0');
        else
          expect(headers.ratelimit).toMatch(
            draft === 'draft-7' ? /^limit=3, remaining=0, reset=\d$/ : /; r=0; t=\d$/,
          );
        await expectRead(headers, true);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  it.each([false, true])('@fastify/rate-limit, enableDraftSpec %s', async (enableDraftSpec) => {
    const app = Fastify();
    await app.register(fastifyRateLimit, { max: 3, timeWindow: 2000, enableDraftSpec });
    app.get('/', async () => 'ok');
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const { status, headers } = await fourth(`${url}/`);
      expect(status).toBe(429);
      expect(headers[enableDraftSpec ? 'ratelimit-remaining' : 'x-ratelimit-remaining']).toBe('0');
      await expectRead(headers, false);
    } finally {
      await app.close();
    }
  });
});
