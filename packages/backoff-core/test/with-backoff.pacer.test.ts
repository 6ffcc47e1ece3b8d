import { describePacerClient } from '@backoff/test-utils';
import { withBackoffDriver } from './support/with-backoff-driver.ts';

describePacerClient(withBackoffDriver, { answeredUrl: true });
