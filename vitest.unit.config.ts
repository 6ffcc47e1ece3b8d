// `pnpm test:unit`: the tests that need no socket, browser or install (vitest.split.ts says which).
import config from './vitest.config.ts';
import { setTestKind } from './vitest.split.ts';

setTestKind('unit');
export default config;
