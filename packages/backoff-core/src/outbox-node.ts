// `backoff-core/outbox/node`: the outbox's store for Node, in files. Apart from `backoff-core/outbox`, which
// browsers load: this one imports Node built-ins.
export { FileOutboxStore } from './node/file-store.js';
