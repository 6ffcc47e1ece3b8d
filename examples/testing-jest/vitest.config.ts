import { backoffProject } from '../../vitest.shared.ts';

// The example suite is jest's (test/); vitest runs only its proof (proof/), which runs jest.
export default backoffProject('testing-jest', { include: ['proof/**/*.test.ts'] });
