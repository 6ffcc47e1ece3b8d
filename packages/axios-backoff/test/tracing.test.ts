import { describeTracingClient } from '@backoff/test-utils/tracing';
import axios from 'axios';
import { axiosDriver } from './support/driver.ts';

// Each adapter with the instrumentation of what it sends on: Node's http module, Node's fetch (undici).
describeTracingClient(axiosDriver(axios, 'http'), { wire: 'http' });
describeTracingClient(axiosDriver(axios, 'fetch'), { wire: 'undici' });
