import { startFlakyServer } from '@backoff/example-kit';
import { runSharedBudget } from './shared-budget.js';

const server = await startFlakyServer();
try {
  await runSharedBudget(
    { log: (line) => console.log(line), options: { baseDelay: 100, maxDelay: 1000 }, now: () => Date.now() },
    server,
  );
} finally {
  await server.close();
}
