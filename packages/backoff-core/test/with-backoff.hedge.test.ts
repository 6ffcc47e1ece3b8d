import { describeHedgingClient } from '@backoff/test-utils';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describeHedgingClient(withBackoffDriver);
