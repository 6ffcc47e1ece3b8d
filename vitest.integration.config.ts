// `pnpm test:integration`: the tests that need a socket, a browser or an install (vitest.split.ts says which).
import config from './vitest.config.ts';

process.env.BACKOFF_TESTS = 'integration';
export default config;
