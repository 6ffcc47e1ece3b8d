// One MSW server for the file that imports it: each test adds the handlers it needs with `server.use(...)`.
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { setupServer } from 'msw/node';

export const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());
