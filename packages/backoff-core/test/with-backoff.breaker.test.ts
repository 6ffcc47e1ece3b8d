import {
  describeCallbackErrorsClient,
  describeCircuitBreakerClient,
  describeMetricsClient,
} from '@backoff/test-utils';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describeCircuitBreakerClient(withBackoffDriver);
describeMetricsClient(withBackoffDriver);
describeCallbackErrorsClient(withBackoffDriver);
