import type { FaultDriver } from '../driver.js';
import { axiosDriver } from './axios.js';
import { ky1Driver, ky2Driver } from './ky.js';
import { withBackoffDriver } from './with-backoff.js';

/** Every client with backoff, in the order the reports list them. */
export const DRIVERS: readonly FaultDriver[] = [
  axiosDriver('http'),
  axiosDriver('fetch'),
  ky2Driver,
  ky1Driver,
  withBackoffDriver,
];
