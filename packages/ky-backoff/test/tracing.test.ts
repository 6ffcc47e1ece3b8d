import { describeTracingClient } from '@backoff/test-utils/tracing';
import { CLIENTS } from './support/clients.ts';
import { kyDriver } from './support/driver.ts';

// ky sends on Node's fetch: the undici instrumentation's wire spans must nest under the attempt spans.
for (const client of CLIENTS) describeTracingClient(kyDriver(client), { wire: 'undici' });
