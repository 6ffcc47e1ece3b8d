// A real macrotask, whatever the test faked: a MessageChannel message (no fake-timer library fakes it), so the
// client's own I/O and promise chains get to run before virtual time moves.

let channel: MessageChannel | undefined;
const waiting: Array<() => void> = [];

/** Resolves on the next real macrotask. */
export function realTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (channel === undefined) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => waiting.shift()?.();
      // Node: an open port would keep the process alive after the tests.
      (channel.port1 as { unref?: () => void }).unref?.();
    }
    channel.port2.postMessage(undefined);
  });
}
