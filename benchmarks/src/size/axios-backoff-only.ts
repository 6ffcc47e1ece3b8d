// What a user who imports only `axiosBackoff` ships: the features they do not use must tree-shake away.
export { axiosBackoff } from 'axios-backoff';
