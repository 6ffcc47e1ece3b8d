import { withBackoff } from 'backoff-core';
import { expect, it, vi } from 'vitest';

// As an app without the optional peer installed would have it.
vi.mock('@opentelemetry/api', () => {
  throw new Error("Cannot find package '@opentelemetry/api'");
});

it('a tracer without @opentelemetry/api installed fails each call with an error that says so; nothing is sent', async () => {
  const fetch = vi.fn(() => Promise.resolve(new Response('ok')));
  const api = withBackoff(fetch, { tracer: { startSpan: () => ({}) } });
  for (const path of ['a', 'b']) {
    const failed = api(`https://example.com/${path}`);
    await expect(failed).rejects.toThrow(
      /`tracer` option needs the package `@opentelemetry\/api`.*npm install @opentelemetry\/api/,
    );
    await expect(failed).rejects.toMatchObject({ cause: expect.any(Error) });
  }
  expect(fetch).not.toHaveBeenCalled();
});
