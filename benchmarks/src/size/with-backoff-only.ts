// What a user who calls only `withBackoff(fetch)` ships: the features they do not use must tree-shake away.
export { withBackoff } from 'backoff-core';
