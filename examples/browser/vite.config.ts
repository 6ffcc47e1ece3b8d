import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

const page = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/**
 * The pages: the retry page (index.html), the test harness that runs the behaviour cases against MSW's worker
 * (harness.html), the test kit's handlers on MSW's worker (kit.html), the tabs sharing one store (tabs.html), and
 * three probes without a worker that talk to a real server on another origin: the preflight probe (cors.html),
 * the offline probe (offline.html), the resume probe (resume.html) and the offline order form (outbox.html). Workspace
 * packages resolve to their TypeScript sources (`@backoff/source`), so nothing needs building first.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { conditions: ['@backoff/source', ...defaultClientConditions] },
  // Loopback only, on both the dev server and the preview server.
  server: { host: '127.0.0.1', port: 5178, strictPort: false },
  preview: { host: '127.0.0.1', port: 5179, strictPort: false },
  build: {
    target: 'es2022',
    // One bundle per page with axios, ky and MSW in it: big for a site, fine for a local demo and tests.
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      input: {
        index: page('index.html'),
        harness: page('harness.html'),
        cors: page('cors.html'),
        offline: page('offline.html'),
        resume: page('resume.html'),
        tabs: page('tabs.html'),
        kit: page('kit.html'),
        outbox: page('outbox.html'),
      },
    },
  },
});
