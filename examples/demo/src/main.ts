import { runDemo } from './demo.js';

// Short delays so the whole demo takes seconds; the server's Retry-After is honoured as it is.
const started = Date.now();
const report = await runDemo({
  log: (line) => console.log(line),
  options: { baseDelay: 250, maxDelay: 2000 },
  now: () => Date.now(),
});
console.log(
  `\nserver saw ${report.serverHits} requests; demo took ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
