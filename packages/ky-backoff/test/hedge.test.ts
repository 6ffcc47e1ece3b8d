import { describeHedgingClient } from '@backoff/test-utils';
import { CLIENTS, KY_1_13 } from './support/clients.ts';
import { kyDriver } from './support/driver.ts';

for (const client of [...CLIENTS, KY_1_13]) describeHedgingClient(kyDriver(client));
