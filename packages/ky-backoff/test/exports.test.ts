import { API, describeReexports, ScriptedApi } from '@backoff/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as entry from '../src/index.ts';
import { CLIENTS } from './support/clients.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

describeReexports('ky-backoff', entry);

describe.each(CLIENTS.map((client) => [client.name, client] as const))(
  "ky-backoff's own error class: %s",
  (_name, client) => {
    const server = new ScriptedApi();
    beforeAll(() => server.listen());
    afterEach(() => server.reset());
    afterAll(() => server.close());
    const { wrap } = virtualBackoff();

    it('the RetriedResponseError a beforeRetry hook sees for a retried 2xx is the exported class', async () => {
      server.script('/job', [202, 200]);
      const seen: unknown[] = [];
      const instance = client.ky.create({
        hooks: { beforeRetry: [({ error }: { error: unknown }) => void seen.push(error)] },
      });
      const response = await wrap(instance, { statusCodes: [202] })(`${API}/job`);
      expect(response.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(entry.RetriedResponseError);
      expect((seen[0] as InstanceType<typeof entry.RetriedResponseError>).response.status).toBe(202);
    });
  },
);
