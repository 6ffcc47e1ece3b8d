import { backoffProject } from '../vitest.shared.ts';

// The smoke test starts a real loopback server and runs every measure at a tiny size: seconds, not minutes.
export default backoffProject('benchmarks', { testTimeout: 60_000, hookTimeout: 60_000 });
