import { describeBeforeAttemptClient } from '@backoff/test-utils';
import axios from 'axios';
import { ADAPTERS, axiosDriver } from './support/driver.ts';

for (const adapter of ADAPTERS) describeBeforeAttemptClient(axiosDriver(axios, adapter));
