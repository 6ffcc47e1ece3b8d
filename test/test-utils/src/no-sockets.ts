// Setup file of `pnpm test:unit`: a unit test opens no socket. Listening is refused; a connection (net, http,
// https, tls and fetch all come down to a TCP or pipe handle's connect) fails with EACCES before it leaves. Either
// fails the test that did it, even when the test caught the error. MSW answers before any handle connects, so
// scripted servers are fine.
import net from 'node:net';
import { constants } from 'node:os';
import { violation } from './unit-violations.js';

function record(what: string): string {
  return violation(`A unit test may not ${what}: make it an integration test (vitest.split.ts).`);
}

net.Server.prototype.listen = function listen() {
  throw new Error(record('listen on a socket'));
};

interface Handle {
  prototype: Record<string, (...args: unknown[]) => number>;
}
// The handles' own methods: below MSW's interception, so only a connection that really leaves is caught.
const { TCP } = (process as unknown as { binding(name: string): { TCP: Handle } }).binding('tcp_wrap');
const { Pipe } = (process as unknown as { binding(name: string): { Pipe: Handle } }).binding('pipe_wrap');
const refused = -(constants.errno.EACCES ?? 13);
for (const [handle, method] of [
  [TCP, 'connect'],
  [TCP, 'connect6'],
  [Pipe, 'connect'],
] as const) {
  handle.prototype[method] = function connect(_request: unknown, address: unknown, port?: unknown) {
    record(`open a socket (to ${String(address)}${port === undefined ? '' : `:${String(port)}`})`);
    return refused;
  };
}
