// The core README's tracing set-up, as a user meets it: a fresh npm project installs the OpenTelemetry packages at
// the versions the README pins, beside the packed backoff packages (npm refuses peers that conflict), loads the
// README's SDK block before an app that calls through every client, against a flaky server on 127.0.0.1. Each
// request the server saw has one CLIENT span, the instrumentation's, carrying its resend count, under an INTERNAL
// span of the attempt.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFlakyServer } from '../src/flaky-server.ts';
import { packPublished } from '../src/pack.ts';
import { blockAfter } from '../src/readme-code.ts';
import { describeRun, npmEnv, PUBLISHED, packageDir, run } from '../src/repo.ts';

const README = 'packages/backoff-core/README.md';

/** The versions a workspace package installs, its dependencies and devDependencies together. */
function installed(dir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return { ...manifest.dependencies, ...manifest.devDependencies };
}

/** The block right after `<!-- tracing:NAME -->` in the core README, in `lang`. */
function readmeBlock(name: string, lang: string): string {
  const block = blockAfter(README, `<!-- tracing:${name} -->`);
  expect(block?.lang, `a \`\`\`${lang} block right after <!-- tracing:${name} --> in ${README}`).toBe(lang);
  return block?.code ?? '';
}

/** The app: one call answered 503, 503, 200 through each client, each on a path of its own. */
const APP = `import { trace } from '@opentelemetry/api';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { withBackoff } from 'backoff-core';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';

const base = process.argv[2];
const options = { tracer: trace.getTracer('my-service'), baseDelay: 5, maxDelay: 5 };
await withBackoff(fetch, options)(base + '/fetch');
for (const adapter of ['http', 'fetch']) {
  const api = axios.create({ baseURL: base, adapter });
  axiosBackoff(api, options);
  await api.get('/axios-' + adapter);
}
await kyBackoff(ky.create({ prefix: base }), options).get('ky');
`;

/** Prints what the README's ConsoleSpanExporter exports (it `console.dir`s each span) as one JSON line each. */
const CAPTURE = `console.dir = (span) => process.stdout.write('SPAN ' + JSON.stringify(span) + '\\n');\n`;

/** A span as the ConsoleSpanExporter shows it, the fields read here. */
interface ExportedSpan {
  readonly id: string;
  readonly name: string;
  readonly kind: number;
  readonly parentSpanContext?: { readonly spanId: string };
  readonly instrumentationScope: { readonly name: string };
  readonly attributes: Readonly<Record<string, unknown>>;
}
const INTERNAL = 0;
const CLIENT = 2;

let work = '';
let project = '';
let install = { code: 0, output: '' };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'backoff-tracing-setup-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = await packPublished(tarballs);
  project = join(work, 'project');
  mkdirSync(project);
  const dependencies: Record<string, string> = {
    axios: installed(packageDir('axios-backoff')).axios ?? '',
    ky: installed(packageDir('ky-backoff')).ky ?? '',
  };
  for (const name of PUBLISHED) dependencies[name] = `file:${packed[name].tarball}`;
  const manifest = { name: 'backoff-tracing-setup', private: true, type: 'module', dependencies };
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The README's own command, its backoff-core the packed one (already a dependency).
  const words = readmeBlock('install', 'sh').split(/\s+/);
  expect(words.slice(0, 3)).toEqual(['npm', 'install', 'backoff-core']);
  const result = await run(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--loglevel=error', ...words.slice(3)],
    { cwd: project, timeout: 240_000, env: npmEnv() },
  );
  install = { code: result.code, output: describeRun('npm install (the README tracing set)', result) };
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

it('the README pins the OpenTelemetry packages the README code is type-checked and the suites run with', () => {
  const pins = readmeBlock('install', 'sh')
    .split(/\s+/)
    .filter((word) => word.startsWith('@opentelemetry/'))
    .map((word) => [word.slice(0, word.lastIndexOf('@')), word.slice(word.lastIndexOf('@') + 1)] as const);
  expect(pins.map(([name]) => name)).toEqual([
    '@opentelemetry/api',
    '@opentelemetry/sdk-node',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/instrumentation-undici',
    '@opentelemetry/instrumentation-http',
  ]);
  const checked = installed(join(import.meta.dirname, '..'));
  const suites = installed(join(import.meta.dirname, '../../test-utils'));
  for (const [name, version] of pins) {
    expect(checked[name], `${name} in test/pack-smoke`).toBe(version);
    if (name in suites) expect(suites[name], `${name} in test/test-utils`).toBe(version);
  }
});

it('npm installs the pinned set beside the packed packages, without a peer conflict', () => {
  expect(install.code, install.output).toBe(0);
});

it("the README's set-up, loaded before an app on every client: one CLIENT span per request, with its resend count", async () => {
  expect(install.code, install.output).toBe(0);
  writeFileSync(join(project, 'tracing.mjs'), `${readmeBlock('setup', 'ts')}\n`);
  writeFileSync(join(project, 'capture.mjs'), CAPTURE);
  writeFileSync(join(project, 'app.mjs'), APP);
  const server = await startFlakyServer(2);
  try {
    const result = await run(
      'node',
      ['--import', './capture.mjs', '--import', './tracing.mjs', 'app.mjs', server.base],
      { cwd: project, timeout: 60_000 },
    );
    expect(result.code, describeRun('node app.mjs', result)).toBe(0);
    const spans: ExportedSpan[] = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('SPAN '))
      .map((line) => JSON.parse(line.slice('SPAN '.length)));
    const byId = new Map(spans.map((span) => [span.id, span]));
    const parent = (span: ExportedSpan | undefined) => byId.get(span?.parentSpanContext?.spanId ?? '');

    const paths = ['/fetch', '/axios-http', '/axios-fetch', '/ky'];
    expect(Object.fromEntries(server.hits)).toEqual(Object.fromEntries(paths.map((path) => [path, 3])));
    // Every CLIENT span is an instrumentation's, under an INTERNAL span of the attempt, under the call's.
    const clients = spans.filter((span) => span.kind === CLIENT);
    expect(clients).toHaveLength(12);
    const seen = clients.map((span) => {
      const attempt = parent(span);
      const call = parent(attempt);
      expect([attempt?.name, attempt?.kind, call?.name, call?.kind]).toEqual([
        'backoff GET attempt',
        INTERNAL,
        'backoff GET',
        INTERNAL,
      ]);
      return {
        path: new URL(String(attempt?.attributes['url.full'])).pathname,
        scope: span.instrumentationScope.name,
        resendCount: span.attributes['http.request.resend_count'] ?? 0,
        status: span.attributes['http.response.status_code'],
      };
    });
    const wire = (path: string) => (path === '/axios-http' ? 'http' : 'undici');
    for (const path of paths) {
      expect(seen.filter((span) => span.path === path)).toEqual(
        [0, 1, 2].map((resendCount) => ({
          path,
          scope: `@opentelemetry/instrumentation-${wire(path)}`,
          resendCount,
          status: resendCount < 2 ? 503 : 200,
        })),
      );
    }
  } finally {
    await server.close();
  }
}, 90_000);
