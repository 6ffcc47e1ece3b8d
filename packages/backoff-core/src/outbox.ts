// `backoff-core/outbox`: keyed writes that wait in a durable store and are replayed with the same key. A separate
// entry, so an app that never imports it carries none of its code.
export {
  MemoryOutboxStore,
  type OutboxBody,
  type OutboxEntry,
  type OutboxStore,
} from './features/outbox/entry.js';
export { type FetchWithOutbox, withOutbox } from './features/outbox/fetch.js';
export { IndexedDbOutboxStore } from './features/outbox/indexeddb.js';
export {
  Outbox,
  type OutboxAnswer,
  type OutboxEvent,
  type OutboxOptions,
  type OutboxReport,
  type OutboxSend,
  QueuedError,
  type QueuedReason,
  type QueuedWrite,
} from './features/outbox/outbox.js';
