import { CircuitBreaker, type Jitter } from 'backoff-core';
import { type CallOutcome, callFlaky, type DemoClient } from './clients.js';
import { Countdown } from './countdown.js';
import { flakyApi, type Scenario } from './flaky-api.js';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as T;
}

const callButton = element<HTMLButtonElement>('call');
const cancelButton = element<HTMLButtonElement>('cancel');
const status = element<HTMLParagraphElement>('status');
const log = element<HTMLOListElement>('log');
const resultLine = element<HTMLParagraphElement>('result');
const clientSelect = element<HTMLSelectElement>('client');
const scenarioSelect = element<HTMLSelectElement>('scenario');
const jitterSelect = element<HTMLSelectElement>('jitter');
const breakerBox = element<HTMLInputElement>('breaker');
const circuitLine = element<HTMLParagraphElement>('circuit');

const RETRIES = 3;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const countdown = new Countdown((text) => {
  status.textContent = text;
});

const api = flakyApi((entry) => {
  const item = document.createElement('li');
  item.textContent = `+${seconds(entry.at)}  ${entry.method} /api/flaky → ${entry.status}`;
  log.append(item);
});

/** "Done after 3 attempts (3.0 s waiting): 200 Hello…", "Failed after …: HTTP 503", "Cancelled after …: …". */
function describe({ kind, detail, result }: CallOutcome): string {
  const spent = result
    ? ` after ${plural(result.attempts, 'attempt')} (${seconds(result.totalDelay)} waiting)`
    : '';
  const word = kind === 'success' ? 'Done' : kind === 'cancelled' ? 'Cancelled' : 'Failed';
  return `${word}${spent}: ${detail}`;
}

/**
 * One breaker for the page, shared by every client and kept across presses, as an app keeps one: 2 failed calls
 * (each after its retries) open the circuit of the page's origin for 5 s, then one probe decides.
 */
const breaker = new CircuitBreaker({
  consecutiveFailures: 2,
  breakDuration: 5000,
  onStateChange: () => showCircuit(),
});
let circuitTimer: ReturnType<typeof setInterval> | undefined;

/** "Circuit: open, next probe in 4.2 s", redrawn every 100 ms while open. */
function showCircuit(): void {
  const now = Date.now();
  const origin = breaker.origin(location.href);
  const state = breaker.state(origin, now);
  const openUntil = breaker.toJSON().origins[origin]?.openUntil ?? now;
  circuitLine.dataset.state = state;
  circuitLine.textContent =
    state === 'open'
      ? `Circuit: open, next probe in ${seconds(Math.ceil((openUntil - now) / 100) * 100)}`
      : `Circuit: ${state}`;
  if (state === 'open' && circuitTimer === undefined) circuitTimer = setInterval(showCircuit, 100);
  if (state !== 'open' && circuitTimer !== undefined) {
    clearInterval(circuitTimer);
    circuitTimer = undefined;
  }
}

let controller: AbortController | undefined;

async function call(): Promise<void> {
  controller = new AbortController();
  callButton.disabled = true;
  cancelButton.disabled = false;
  log.replaceChildren();
  resultLine.textContent = '';
  resultLine.dataset.kind = '';
  status.textContent = `Sending attempt 1 of ${RETRIES + 1}…`;
  api.reset(scenarioSelect.value as Scenario);
  const outcome = await callFlaky(
    clientSelect.value as DemoClient,
    {
      retries: RETRIES,
      jitter: jitterSelect.value as Jitter,
      onRetry: (event) => countdown.start(event),
      circuitBreaker: breakerBox.checked ? breaker : false,
    },
    controller.signal,
  );
  countdown.stop();
  status.textContent = 'Idle.';
  resultLine.textContent = describe(outcome);
  resultLine.dataset.kind = outcome.kind;
  callButton.disabled = false;
  cancelButton.disabled = true;
  showCircuit();
}

callButton.addEventListener('click', () => {
  void call();
});
cancelButton.addEventListener('click', () => controller?.abort());

await api.start();
status.textContent = 'Idle.';
callButton.disabled = false;
