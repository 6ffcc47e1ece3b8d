import {
  describeCircuitBreakerClient,
  describeMetricsClient,
  describePacerClient,
} from '@backoff/test-utils';
import axios from 'axios';
import { ADAPTERS, axiosDriver } from './support/driver.ts';

for (const adapter of ADAPTERS) {
  describeCircuitBreakerClient(axiosDriver(axios, adapter));
  describeMetricsClient(axiosDriver(axios, adapter));
  describePacerClient(axiosDriver(axios, adapter));
}
