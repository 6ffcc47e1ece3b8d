export type { FaultClient, FaultDriver, Transport } from './driver.js';
export { axiosDriver } from './drivers/axios.js';
export { DRIVERS } from './drivers/index.js';
export { ky1Driver, ky2Driver } from './drivers/ky.js';
export { timedFetch, withBackoffDriver } from './drivers/with-backoff.js';
export { type FaultHit, FaultServer, type PathStats } from './fault-server.js';
export { type Fault, faultPath, parseFaultPath, type Step, toFault } from './faults.js';
