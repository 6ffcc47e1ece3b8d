import axios from 'axios';
import { expect, it } from 'vitest';
import { ADAPTERS } from './support/driver.ts';
import { describeSocketCases } from './support/socket-cases.ts';

// Real sockets only, in a file of their own: the fetch adapter keeps the first fetch globals it sees, so it
// must never meet MSW's patched ones in the same process.
it('runs against axios 1.21.1', () => {
  expect(axios.VERSION).toBe('1.21.1');
});

for (const adapter of ADAPTERS) describeSocketCases(axios, adapter);
