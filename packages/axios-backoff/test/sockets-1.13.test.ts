import axios from 'axios';
import { expect, it, vi } from 'vitest';
import { ADAPTERS } from './support/driver.ts';
import { describeSocketCases } from './support/socket-cases.ts';

// The oldest supported axios, as a user with axios 1.13.4 installed has it: every `import 'axios'` in this
// file's module graph (axios-backoff's sources included) gets 1.13.4.
vi.mock('axios', async () => await import('axios-1.13.4'));

// Real sockets only, in a file of their own: the fetch adapter keeps the first fetch globals it sees, so it
// must never meet MSW's patched ones in the same process.
it('runs against axios 1.13.4', () => {
  expect(axios.VERSION).toBe('1.13.4');
});

for (const adapter of ADAPTERS) describeSocketCases(axios, adapter);
