import { backoffProject } from '../../vitest.shared.ts';

// --expose-gc: the leak test measures the heap after a forced GC. Real sockets everywhere, and no MSW in this
// project: axios's fetch adapter keeps the first fetch globals it sees, so the two must never meet.
export default backoffProject('fault-suite', { execArgv: ['--expose-gc'] });
