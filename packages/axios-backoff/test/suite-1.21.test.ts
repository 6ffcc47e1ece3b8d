import { describeBackoffClient } from '@backoff/test-utils';
import axios from 'axios';
import { expect, it } from 'vitest';
import { ADAPTERS, axiosDriver } from './support/driver.ts';

it('runs against axios 1.21.1', () => {
  expect(axios.VERSION).toBe('1.21.1');
});

for (const adapter of ADAPTERS) describeBackoffClient(axiosDriver(axios, adapter));
