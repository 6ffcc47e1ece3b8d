import { runScenarios, startFlakyServer, summaryTable } from '@backoff/example-kit';
import { axiosClient } from './client.js';

const server = await startFlakyServer();
const options = { baseDelay: 250, maxDelay: 2000 };
const context = { log: (line: string) => console.log(line), options, now: () => Date.now() };
try {
  const rows = await runScenarios(context, server, axiosClient(options));
  for (const line of summaryTable('axios + axios-backoff', rows)) console.log(line);
} finally {
  await server.close();
}
