import { backoffProject } from '../../vitest.shared.ts';

export default backoffProject('ky-backoff');
