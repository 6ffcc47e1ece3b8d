// `pnpm test:integration`: the tests that need a socket, a browser or an install (vitest.split.ts says which).
import config from './vitest.config.ts';
import { setTestKind } from './vitest.split.ts';

setTestKind('integration');
export default config;
