// beforeAttempt beside ky's own hooks: it runs after them, on the Request ky fetches, and the key is read from there.
import { API, ScriptedApi } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS } from './support/clients.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

const server = new ScriptedApi();
beforeAll(() => server.listen());
afterEach(() => server.reset());
afterAll(() => server.close());

describe.each(CLIENTS.map((client) => [client.name, client] as const))(
  "beforeAttempt and ky's hooks: %s",
  (_name, client) => {
    const { wrap } = virtualBackoff();

    it("runs after ky's beforeRequest and beforeRetry, and sees what they set; its change stays on its attempt", async () => {
      const route = server.script('/items', [503, 200]);
      const seen: (string | null)[][] = [];
      const api = wrap(
        client.ky.create({
          hooks: {
            beforeRequest: [(...args: unknown[]) => void requestOf(args).headers.set('x-ky', 'request')],
            beforeRetry: [({ request }: { request: Request }) => void request.headers.set('x-ky', 'retry')],
          },
        }),
        {
          beforeAttempt: ({ headers }) => {
            seen.push([headers.get('x-ky')]);
            headers.set('x-ky', `${headers.get('x-ky')}+hook`);
          },
        },
      );
      expect((await api(`${API}/items`)).status).toBe(200);
      // ky 1 runs beforeRequest before every attempt, after beforeRetry; ky 2 once.
      const retry = client.major === 2 ? 'retry' : 'request';
      expect(seen).toEqual([['request'], [retry]]);
      expect(route.hits.map((hit) => hit.headers.get('x-ky'))).toEqual(['request+hook', `${retry}+hook`]);
    });

    it("a key that ky's beforeRetry removes is missed on what is sent: the POST is not sent again", async () => {
      const route = server.script('/orders', [503, 201]);
      const api = wrap(
        client.ky.create({
          hooks: {
            beforeRetry: [
              ({ request }: { request: Request }) => void request.headers.delete('Idempotency-Key'),
            ],
          },
        }),
        // The hook does nothing: the key was lost to ky's own hook, and it is read from what goes out.
        { beforeAttempt: () => {} },
      );
      const error = await api(`${API}/orders`, {
        method: 'post',
        json: { item: 1 },
        headers: { 'Idempotency-Key': '"order-1"' },
      }).then(
        () => expect.unreachable('the POST resolved'),
        (e: unknown) => e,
      );
      expect(route.hits).toHaveLength(1);
      expect(error).toBeInstanceOf(TypeError);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    });
  },
);

// ky 2 passes hooks one state object; ky 1 its arguments one by one.
function requestOf(args: unknown[]): Request {
  const [first] = args;
  return first instanceof Request ? first : (first as { request: Request }).request;
}
