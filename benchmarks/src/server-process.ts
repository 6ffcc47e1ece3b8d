// The loopback server of the overhead measure, run in its own process (so its CPU time is not the client's).
// Node runs this file directly (type stripping): it imports nothing but Node and uses only erasable syntax.
import { createServer } from 'node:http';

const BODY = '{"ok":true}';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
  response.end(BODY);
});
// Keep-alive for the whole run: a reconnect in the middle of a round would be counted as client CPU.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.maxRequestsPerSocket = 0;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({ port: address.port });
});

// The parent ends the run by disconnecting (or dying): the server then goes too.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});
