interface Scheduled {
  readonly time: number;
  readonly seq: number;
  readonly run: () => void;
}

/**
 * The heart of a discrete-event simulation: a binary min-heap of events in virtual time. Events at the same
 * time run in the order they were scheduled (the sequence number breaks ties), so a run is deterministic.
 */
export class EventQueue {
  readonly #heap: Scheduled[] = [];
  #seq = 0;
  #now = 0;
  #processed = 0;

  /** The virtual time of the event being run, in ms. */
  get now(): number {
    return this.#now;
  }

  /** Events run so far. */
  get processed(): number {
    return this.#processed;
  }

  get size(): number {
    return this.#heap.length;
  }

  /** Runs `run` at virtual time `time` (never before the current time). */
  at(time: number, run: () => void): void {
    if (!(time >= this.#now))
      throw new RangeError(`Cannot schedule an event at ${time}, before ${this.#now}.`);
    this.#push({ time, seq: this.#seq++, run });
  }

  /** Runs `run` `delay` ms from now. */
  after(delay: number, run: () => void): void {
    this.at(this.#now + delay, run);
  }

  /** Runs the next event, if there is one; `false` when the queue is empty. */
  step(): boolean {
    const first = this.#heap[0];
    if (first === undefined) return false;
    this.#pop();
    this.#now = first.time;
    this.#processed++;
    first.run();
    return true;
  }

  /** Runs events in time order until none is left, or until the next one is after `until`. */
  run(until = Number.POSITIVE_INFINITY): void {
    while (this.#heap.length > 0) {
      const first = this.#heap[0] as Scheduled;
      if (first.time > until) break;
      this.#pop();
      this.#now = first.time;
      this.#processed++;
      first.run();
    }
  }

  #before(a: Scheduled, b: Scheduled): boolean {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }

  #push(item: Scheduled): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Scheduled;
      if (!this.#before(item, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = item;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop() as Scheduled;
    if (heap.length === 0) return;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.#before(heap[right] as Scheduled, heap[left] as Scheduled)) child = right;
      const c = heap[child] as Scheduled;
      if (!this.#before(c, last)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
  }
}
