import { describeBeforeAttemptClient } from '@backoff/test-utils';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describeBeforeAttemptClient(withBackoffDriver);
