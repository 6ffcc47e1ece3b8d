import { backoffProject } from '../../vitest.shared.ts';

// test/: the example suite, as a user writes it. proof/: that it fails when the app's retry rule is broken.
export default backoffProject('testing-vitest', { include: ['test/**/*.test.ts', 'proof/**/*.test.ts'] });
