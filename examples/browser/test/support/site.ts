import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

const configFile = fileURLToPath(new URL('../../vite.config.ts', import.meta.url));

/** The built pages, served on 127.0.0.1 (an ephemeral port); `close` stops the server and removes the build. */
export interface Site {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Builds the pages with Vite into a temporary folder and serves the build with `vite preview`. A build, not the
 * dev server: the page the tests load is exactly what the bundler produced, and no dependency pre-bundling can
 * reload it mid-test.
 */
export async function serveSite(): Promise<Site> {
  const outDir = await mkdtemp(join(tmpdir(), 'backoff-browser-'));
  await build({ configFile, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const server = await preview({
    configFile,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  });
  const address = server.httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}
