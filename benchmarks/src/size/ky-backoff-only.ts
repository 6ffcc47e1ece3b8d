// What a user who imports only `kyBackoff` ships: the features they do not use must tree-shake away.
export { kyBackoff } from 'ky-backoff';
