import axios from 'axios';
import { expect, it, vi } from 'vitest';
import { describeAxiosCases, describeCustomAdapterCases } from './support/axios-cases.ts';
import { ADAPTERS } from './support/driver.ts';

// The oldest supported axios, as a user with axios 1.13.4 installed has it: every `import 'axios'` in this
// file's module graph (axios-backoff's sources included) gets 1.13.4.
vi.mock('axios', async () => await import('axios-1.13.4'));

it('runs against axios 1.13.4', () => {
  expect(axios.VERSION).toBe('1.13.4');
});

for (const adapter of ADAPTERS) describeAxiosCases(axios, adapter);
describeCustomAdapterCases(axios);
