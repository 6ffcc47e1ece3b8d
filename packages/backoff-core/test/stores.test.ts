import { describeCircuitStore, describePacerStore } from '@backoff/test-utils';
import { CircuitBreaker, Pacer } from 'backoff-core';

// The store contract, run against the default stores (a store of another package runs the same suites).
describePacerStore('Pacer.MemoryStore', () => new Pacer.MemoryStore());
describePacerStore('Pacer.MemoryStore, shared', () => new Pacer.MemoryStore({ shared: true }), {
  shared: true,
});
describeCircuitStore('CircuitBreaker.MemoryStore', () => new CircuitBreaker.MemoryStore());
