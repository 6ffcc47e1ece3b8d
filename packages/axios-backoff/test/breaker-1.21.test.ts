import {
  describeCallbackErrorsClient,
  describeCircuitBreakerClient,
  describeMetricsClient,
  describePacerClient,
} from '@backoff/test-utils';
import axios from 'axios';
import { ADAPTERS, axiosDriver } from './support/driver.ts';

for (const adapter of ADAPTERS) {
  describeCircuitBreakerClient(axiosDriver(axios, adapter));
  describeMetricsClient(axiosDriver(axios, adapter));
  // axios's fetch adapter keeps no URL of the response that answered a redirect.
  describePacerClient(axiosDriver(axios, adapter), { answeredUrl: adapter === 'http' });
  describeCallbackErrorsClient(axiosDriver(axios, adapter));
}
