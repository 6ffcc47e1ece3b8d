import type { Jitter } from 'backoff-core';
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
    { retries: RETRIES, jitter: jitterSelect.value as Jitter, onRetry: (event) => countdown.start(event) },
    controller.signal,
  );
  countdown.stop();
  status.textContent = 'Idle.';
  resultLine.textContent = describe(outcome);
  resultLine.dataset.kind = outcome.kind;
  callButton.disabled = false;
  cancelButton.disabled = true;
}

callButton.addEventListener('click', () => {
  void call();
});
cancelButton.addEventListener('click', () => controller?.abort());

await api.start();
status.textContent = 'Idle.';
callButton.disabled = false;
