import { backoffProject } from '../../vitest.shared.ts';

// Against a real redis-server, started per file on a free port.
export default backoffProject('backoff-redis', { testTimeout: 20_000, hookTimeout: 20_000 });
