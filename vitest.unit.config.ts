// `pnpm test:unit`: the tests that need no socket, browser or install (vitest.split.ts says which).
import config from './vitest.config.ts';

process.env.BACKOFF_TESTS = 'unit';
export default config;
