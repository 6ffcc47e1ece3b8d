import { describeBeforeAttemptClient } from '@backoff/test-utils';
import { CLIENTS, KY_1_13 } from './support/clients.ts';
import { kyDriver } from './support/driver.ts';

for (const client of [...CLIENTS, KY_1_13]) describeBeforeAttemptClient(kyDriver(client));
describeBeforeAttemptClient(kyDriver(CLIENTS[0] as (typeof CLIENTS)[number], false));
