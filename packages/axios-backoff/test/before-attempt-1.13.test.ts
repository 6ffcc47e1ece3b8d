import { describeBeforeAttemptClient } from '@backoff/test-utils';
import axios from 'axios';
import { expect, it, vi } from 'vitest';
import { ADAPTERS, axiosDriver } from './support/driver.ts';

// The oldest supported axios (see suite-1.13.test.ts).
vi.mock('axios', async () => await import('axios-1.13.4'));

it('runs against axios 1.13.4', () => {
  expect(axios.VERSION).toBe('1.13.4');
});

for (const adapter of ADAPTERS) describeBeforeAttemptClient(axiosDriver(axios, adapter));
