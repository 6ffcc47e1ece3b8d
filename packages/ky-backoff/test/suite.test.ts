import { readFile } from 'node:fs/promises';
import { describeBackoffClient } from '@backoff/test-utils';
import { describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13 } from './support/clients.ts';
import { kyDriver } from './support/driver.ts';

const ALIASES: Record<string, string> = {
  'ky 2.1.0': 'ky',
  'ky 2.0.0': 'ky-2.0.0',
  'ky 1.14.3': 'ky-1',
  'ky 1.14.2': 'ky-1.14.2',
  'ky 1.13.0': 'ky-1.13.0',
};

describe('the installed ky copies', () => {
  it.each([...CLIENTS, KY_1_13].map((client) => client.name))('%s is the one under test', async (name) => {
    // ky's `exports` hide its package.json from resolution; the alias's folder holds it.
    const file = new URL(`../node_modules/${ALIASES[name]}/package.json`, import.meta.url);
    const { version } = JSON.parse(await readFile(file, 'utf8')) as { version: string };
    expect(`ky ${version}`).toBe(name);
  });
});

for (const client of CLIENTS) {
  describeBackoffClient(kyDriver(client));
  describeBackoffClient(kyDriver(client, false));
}

// ky 1.13 has no `ky.retry()`: a status it does not throw for is retried through kyBackoff's own error.
describeBackoffClient(kyDriver(KY_1_13));
describeBackoffClient(kyDriver(KY_1_13, false));
