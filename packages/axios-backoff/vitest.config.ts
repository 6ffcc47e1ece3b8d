import { backoffProject } from '../../vitest.shared.ts';

export default backoffProject('axios-backoff', {
  // Type tests: `expectTypeOf` in test/*.test-d.ts, checked by tsc (TypeScript 7) through vitest's typechecker.
  typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.test.json' },
});
