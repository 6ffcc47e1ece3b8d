// The example suite's config with the app's retry rule broken: its policy's `retries: 3` becomes `retries: 2`.
import type { Plugin } from 'vite';
import { mergeConfig } from 'vitest/config';
import config from '../vitest.config.ts';

const APP = /examples\/testing-app\/src\/index\.ts$/;

const wrongRetries: Plugin = {
  name: 'wrong-retries',
  enforce: 'pre',
  transform(code, id) {
    if (!APP.test(id)) return undefined;
    // A proof that changed nothing would prove nothing.
    if (!code.includes('retries: 3,'))
      throw new Error(`${id} no longer sets \`retries: 3,\`: update the proof.`);
    return code.replace('retries: 3,', 'retries: 2,');
  },
};

export default mergeConfig(config, { plugins: [wrongRetries] });
