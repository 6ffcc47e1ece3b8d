import { defineConfig } from 'tsdown';

// ESM and CJS, each with its own declarations, as the other packages ship. Node only: it talks to Redis.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  platform: 'node',
  target: 'es2022',
  clean: true,
});
