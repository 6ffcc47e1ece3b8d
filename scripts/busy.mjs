// Keeps the machine busy, as CI's machine is when other jobs share it: a test that passes only on an idle machine
// fails under it. `node scripts/busy.mjs [--workers N] [--seconds S] [-- command ...]` spins N threads (default:
// the number of cores) for S seconds (default 60), or, given a command, for as long as the command runs (its exit
// code is this script's). Example: `node scripts/busy.mjs --workers 2 -- pnpm test:unit`.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { isMainThread, Worker, workerData } from 'node:worker_threads';

if (!isMainThread) {
  // A busy loop that looks at the clock only every million steps, so nearly all of its time is spent computing.
  const end = workerData.end;
  let x = 0;
  while (Date.now() < end) for (let i = 0; i < 1e6; i++) x = (x * 31 + i) % 1_000_003;
  process.exit(0);
}

function option(args, name, fallback) {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  if (!(Number.isInteger(value) && value > 0)) {
    console.error(`busy: ${name} takes a whole number above 0, got ${String(args[at + 1])}.`);
    process.exit(2);
  }
  return value;
}

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash === -1 ? argv : argv.slice(0, dash);
const command = dash === -1 ? [] : argv.slice(dash + 1);
const workers = option(own, '--workers', availableParallelism());
// With a command, the load lasts as long as it does (a day at most): the threads are ended when it exits.
const seconds = option(own, '--seconds', command.length > 0 ? 86_400 : 60);

const end = Date.now() + seconds * 1000;
const threads = Array.from(
  { length: workers },
  () => new Worker(new URL(import.meta.url), { workerData: { end } }),
);
console.error(
  `busy: ${workers} busy thread(s) for ${command.length > 0 ? command.join(' ') : `${seconds} s`}`,
);

if (command.length > 0) {
  const child = spawn(command[0], command.slice(1), {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  child.on('exit', (code, signal) => {
    for (const thread of threads) void thread.terminate();
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}
