// A real macrotask, whatever the test faked, so the client's own I/O and promise chains get to run before virtual
// time moves. In Node, setImmediate as the kit found it when loaded (before a test fakes the timers): Node delivers
// a MessagePort's messages a thousand at a time, before its other I/O, so a loop of them would starve the client.
// Elsewhere (a page), or where setImmediate was already fake when the kit loaded, a MessageChannel message: no
// fake-timer library fakes it.

type Immediate = ((callback: () => void) => unknown) & { clock?: unknown };

// The fake-timer library of vitest and jest marks each function it replaced with its `clock`.
const found = (globalThis as { setImmediate?: Immediate }).setImmediate;
const immediate = typeof found === 'function' && found.clock === undefined ? found : undefined;

let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];

function message(resolve: () => void): void {
  waiting.push(resolve);
  if (channel === undefined) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
    // Node: an open port would keep the process alive after the tests.
    (channel.port1 as { unref?: () => void }).unref?.();
  }
  channel.port2.postMessage(undefined);
}

/** Resolves on the next real macrotask. */
export function realTurn(): Promise<void> {
  return new Promise((resolve) => (immediate ? immediate(resolve) : message(resolve)));
}
