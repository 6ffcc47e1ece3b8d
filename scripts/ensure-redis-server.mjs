// Runs after `pnpm install`: the shared-store tests and benchmarks start a real redis-server (Debian's package) on a
// free 127.0.0.1 port. When it is missing and this is Debian (or Ubuntu) as root, it is installed with apt-get;
// otherwise this says how to install it. It never fails the install: without redis-server only those tests fail,
// each saying so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const has = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

if (has('redis-server', ['--version'])) process.exit(0);

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const debian = existsSync('/etc/debian_version') && has('apt-get', ['--version']);
const help =
  'redis-server is not installed: the shared-store tests need it. Install it with `sudo apt-get install -y redis-server` (Debian, Ubuntu) or `brew install redis` (macOS).';

if (process.env.CI_SKIP_REDIS === '1' || !(root && debian)) {
  console.warn(`[backoff] ${help}`);
  process.exit(0);
}

console.log('[backoff] installing redis-server (apt-get) for the shared-store tests...');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
let installed = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'redis-server'], {
  stdio: 'inherit',
  env,
});
if (installed.status !== 0) {
  // A fresh machine has no package lists yet.
  spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
  installed = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'redis-server'], {
    stdio: 'inherit',
    env,
  });
}
if (installed.status !== 0 || !has('redis-server', ['--version'])) console.warn(`[backoff] ${help}`);
process.exit(0);
