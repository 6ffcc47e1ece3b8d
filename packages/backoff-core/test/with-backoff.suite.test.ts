import { describeBackoffClient } from '@backoff/test-utils';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describeBackoffClient(withBackoffDriver);
