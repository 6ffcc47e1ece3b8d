// swc, as the example's own transform, with the app's retry rule broken on the way: its policy's `retries: 3`
// becomes `retries: 2`.
import swcJest from '@swc/jest';

const swc = swcJest.createTransformer();

function broken(source, path) {
  // A proof that changed nothing would prove nothing.
  if (!source.includes('retries: 3,'))
    throw new Error(`${path} no longer sets \`retries: 3,\`: update the proof.`);
  return source.replace('retries: 3,', 'retries: 2,');
}

export default {
  process: (source, path, options) => swc.process(broken(source, path), path, options),
  processAsync: (source, path, options) => swc.processAsync(broken(source, path), path, options),
  // Keyed by the broken source, so neither run takes the other's cached output.
  getCacheKey: (source, path, options) => swc.getCacheKey(broken(source, path), path, options),
};
