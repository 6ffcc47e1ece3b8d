import { runScenarios, startFlakyServer, summaryTable } from '@backoff/example-kit';
import { kyClient } from './client.js';

const server = await startFlakyServer();
const options = { baseDelay: 250, maxDelay: 2000 };
const context = { log: (line: string) => console.log(line), options, now: () => Date.now() };
try {
  const rows = await runScenarios(context, server, kyClient(options));
  for (const line of summaryTable('ky + ky-backoff', rows)) console.log(line);
} finally {
  await server.close();
}
