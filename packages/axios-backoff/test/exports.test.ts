import { describeReexports } from '@backoff/test-utils';
import * as entry from '../src/index.ts';

describeReexports('axios-backoff', entry);
