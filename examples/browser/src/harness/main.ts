import { type CaseName, runCase } from './cases.js';
import { RealTimerCall } from './real-timers.js';
import { ScriptedWorker } from './scripted-worker.js';
import type { ClientName, Observation } from './types.js';

/** What the harness page exposes to the Node side (`page.evaluate(() => window.harness...)`). */
export interface Harness {
  /** Resolves once MSW's service worker controls the page; with the worker's script URL. */
  readonly ready: Promise<string>;
  runCase(client: ClientName, name: CaseName): Promise<Observation>;
  /** Starts a call on the page's real timers; returns the first onRetry's delay once the wait begins. */
  startRealTimerCall(client: ClientName, path: string): Promise<number>;
  /** The call started last. */
  readonly call: RealTimerCall | undefined;
}

declare global {
  interface Window {
    harness: Harness;
  }
}

const worker = new ScriptedWorker();
let call: RealTimerCall | undefined;

window.harness = {
  ready: worker.start().then(() => navigator.serviceWorker.controller?.scriptURL ?? 'no controller'),
  runCase: (client, name) => runCase(worker, client, name),
  async startRealTimerCall(client, path) {
    call = new RealTimerCall(worker, client, path);
    return (await call.retrying).delay;
  },
  get call() {
    return call;
  },
};
