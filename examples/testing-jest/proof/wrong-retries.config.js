// The example's jest config with the app's retry rule broken (proof/wrong-retries.transform.js).
import config from '../jest.config.js';

export default {
  ...config,
  rootDir: '..',
  // The first pattern that matches a file transforms it.
  transform: {
    'testing-app/src/index\\.ts$': '<rootDir>/proof/wrong-retries.transform.js',
    ...config.transform,
  },
};
