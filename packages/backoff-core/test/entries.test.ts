import { readdirSync, readFileSync } from 'node:fs';
import * as main from 'backoff-core';
import * as adapter from 'backoff-core/adapter';
import * as outbox from 'backoff-core/outbox';
import * as outboxNode from 'backoff-core/outbox/node';
import * as testing from 'backoff-core/testing';
import { describe, expect, it } from 'vitest';

const SOURCES = new URL('../src/', import.meta.url);

/** Every name an entry's source exports, types included: `export { a, type B } from '...'`. */
function exportedNames(entry: string): string[] {
  const source = readFileSync(new URL(entry, SOURCES), 'utf8');
  const clauses = [...source.matchAll(/export (?:type )?\{([^}]*)\}/g)].map((match) => match[1] ?? '');
  return clauses.flatMap((clause) =>
    clause
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter(Boolean),
  );
}

/** The names whose declaration in src/ has no doc comment right above it (what an editor's hover shows). */
function undocumented(names: readonly string[]): string[] {
  // Every folder of src/ (run/, decide/, resume/...).
  const files = readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(new URL(file, SOURCES), 'utf8'));
  return names.filter((name) => {
    const declaration = new RegExp(
      `^export (?:abstract |async )?(?:class|function|interface|type|const) ${name}\\b`,
      'm',
    );
    const file = files.find((source) => declaration.test(source));
    const before = file?.slice(0, file.search(declaration)).trimEnd();
    return before === undefined || !before.endsWith('*/');
  });
}

describe('the public surface', () => {
  it('the main entry holds what users write, and nothing an adapter alone needs', () => {
    expect(Object.keys(main).sort()).toEqual([
      'BackoffMetrics',
      'CircuitBreaker',
      'CircuitOpenError',
      'DEFAULT_METHODS',
      'DEFAULT_STATUS_CODES',
      'Hedge',
      'Pacer',
      'ResumeError',
      'RetryBudget',
      'TabStore',
      'attemptAttributes',
      'createBackoff',
      'getBackoffResult',
      'parseRetryAfter',
      'withBackoff',
    ]);
  });

  it('the main entry, types included, is 37 names a user can hold in their head', () => {
    expect(exportedNames('index.ts').sort()).toEqual([
      'AttemptContext',
      'Backoff',
      'BackoffMetrics',
      'BackoffMetricsOptions',
      'BackoffMetricsSnapshot',
      'BackoffOptions',
      'BackoffResult',
      'CircuitBreaker',
      'CircuitBreakerOptions',
      'CircuitBreakerSnapshot',
      'CircuitOpenError',
      'CircuitState',
      'CircuitStateChange',
      'DEFAULT_METHODS',
      'DEFAULT_STATUS_CODES',
      'DelayContext',
      'FetchWithBackoff',
      'Hedge',
      'HedgeOptions',
      'Jitter',
      'NetworkStatus',
      'Pacer',
      'ResumeError',
      'ResumeOptions',
      'RetryBudget',
      'RetryBudgetOptions',
      'RetryBudgetSnapshot',
      'RetryEvent',
      'RetryReason',
      'ShouldRetryContext',
      'StopReason',
      'TabStore',
      'attemptAttributes',
      'createBackoff',
      'getBackoffResult',
      'parseRetryAfter',
      'withBackoff',
    ]);
  });

  it('`backoff-core/adapter` holds the runner, the decision step, outcomes and the result attached to what callers get', () => {
    expect(Object.keys(adapter).sort()).toEqual([
      'DEFAULTS',
      'Stopped',
      'attachResult',
      'briefly',
      'classifyError',
      'classifyNetworkFailure',
      'decide',
      'fetchRedirected',
      'field',
      'generateIdempotencyKey',
      'headerGetter',
      'isRetryBudget',
      'parseHttpDate',
      'receivedHeaders',
      'replayableBody',
      'responseOutcome',
      'runCall',
      'sleep',
      'startCall',
      'webResponseBody',
    ]);
  });

  it('`backoff-core/testing` holds the MSW handlers and virtual time, for tests', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'chaos',
      'cutBody',
      'down',
      'eventStream',
      'flaky',
      'rateLimited',
      'slow',
      'virtualTime',
    ]);
  });

  it('`backoff-core/outbox` holds the outbox, its stores and its error, apart from the main entry', () => {
    expect(Object.keys(outbox).sort()).toEqual([
      'IndexedDbOutboxStore',
      'MemoryOutboxStore',
      'Outbox',
      'QueuedError',
      'withOutbox',
    ]);
    expect(Object.keys(outboxNode)).toEqual(['FileOutboxStore']);
  });

  it('no module the main entry or the adapter entry loads imports the test kit or MSW', () => {
    const imports = (file: string) =>
      [...readFileSync(new URL(file, SOURCES), 'utf8').matchAll(/(?:from |import\()'([^']+)'/g)].map(
        (match) => match[1] ?? '',
      );
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of imports(file)) {
        if (target.startsWith('.'))
          visit(
            new URL(target.replace(/\.js$/, '.ts'), new URL(file, SOURCES)).href.slice(SOURCES.href.length),
          );
        else reached.add(target);
      }
    };
    visit('index.ts');
    visit('adapter.ts');
    expect(reached.size).toBeGreaterThan(30);
    expect(
      [...reached].filter((file) => file.startsWith('testing') || file === 'msw' || file.startsWith('msw/')),
    ).toEqual([]);
  });

  it('every name an entry exports is documented where it is declared, so hovers and the published types show it', () => {
    expect(
      undocumented([
        ...exportedNames('index.ts'),
        ...exportedNames('adapter.ts'),
        ...exportedNames('testing.ts'),
        ...exportedNames('outbox.ts'),
        ...exportedNames('outbox-node.ts'),
      ]),
    ).toEqual([]);
  });
});
