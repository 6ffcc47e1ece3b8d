import axios from 'axios';
import { expect, it } from 'vitest';
import { describeAxiosCases, describeCustomAdapterCases } from './support/axios-cases.ts';
import { ADAPTERS } from './support/driver.ts';

it('runs against axios 1.21.1', () => {
  expect(axios.VERSION).toBe('1.21.1');
});

for (const adapter of ADAPTERS) describeAxiosCases(axios, adapter);
describeCustomAdapterCases(axios);
