import {
  describeCallbackErrorsClient,
  describeCircuitBreakerClient,
  describeMetricsClient,
  describePacerClient,
} from '@backoff/test-utils';
import { CLIENTS, KY_1_13 } from './support/clients.ts';
import { kyDriver } from './support/driver.ts';

for (const client of [...CLIENTS, KY_1_13]) {
  describeCircuitBreakerClient(kyDriver(client));
  describeMetricsClient(kyDriver(client));
  describePacerClient(kyDriver(client), { answeredUrl: true });
  describeCallbackErrorsClient(kyDriver(client));
}
describeCircuitBreakerClient(kyDriver(CLIENTS[0] as (typeof CLIENTS)[number], false));
