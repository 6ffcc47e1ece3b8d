import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { AmplificationConfig } from './amplification.js';
import type { ContentionSweep } from './contention.js';
import type { DeadBackendConfig } from './dead-backend.js';
import type { HerdConfig } from './herd.js';
import type { HerdMatrixConfig } from './herd-matrix.js';
import type { PacingConfig } from './pacing.js';

export const SCENARIOS = ['herd', 'contention', 'amplification', 'dead-backend', 'pacing'] as const;
/** A scenario run by `--only`, or the matrix, run on its own by the `herd-matrix` command. */
export type ScenarioId = (typeof SCENARIOS)[number] | 'herd-matrix';

/** Everything one `pnpm simulate` run needs, after defaults and validation. */
export interface SimulationConfig {
  readonly seed: number;
  readonly out: string;
  readonly scenarios: readonly ScenarioId[];
  /** Retries of the herd's "other library" strategies (the defaults rows keep the core's 3). */
  readonly herd: HerdConfig & { readonly retries: number };
  readonly contention: ContentionSweep;
  readonly amplification: AmplificationConfig;
  readonly deadBackend: DeadBackendConfig;
  readonly pacing: PacingConfig;
  readonly herdMatrix: HerdMatrixConfig;
}

export const USAGE = `Usage: pnpm simulate [flags]
       pnpm simulate herd-matrix [--clients LIST] [--outage LIST] [--capacity N] [--seed N] [--out DIR]

  --seed N           seed of every random stream (default 1)
  --quick            small sizes (a few hundred ms); any size flag below still wins
  --only LIST        comma-separated: herd, contention, amplification, dead-backend, pacing (default: all five)
  --out DIR          where the SVG charts go (default .simulate; relative to the repository root)
  --latency MS       network delay per message, mean, in ms (default 10; sd 20% of it, as in the AWS blog)

  herd:          --clients N (1000)  --down S (10)  --capacity REQ_PER_S (200)  --retries N (10)
  contention:    --min-clients N (10)  --max-clients N (190)  --step N (10)  --runs N (5)  --base MS (5)
  amplification: --rate REQ_PER_S (100)  --duration S (60)  --fail-from S (10)  --fail-to S (40)
  dead-backend:  --dead-rate REQ_PER_S (100)  --dead-for S (60)  (dies at 10 s, calls for 30 s after it returns)
  pacing:        --limit REQ_PER_S (20)  --pace-rate CALLS_PER_S (50)  --pace-for S (4)

  herd-matrix:   every fleet size against every outage, each client the defaults plus deadline: 120_000
                 --clients LIST (300,1000,5000)  --outage LIST of seconds (3,10,30)  --capacity REQ_PER_S (200)
`;

const FLAGS = {
  help: { type: 'boolean', short: 'h' },
  quick: { type: 'boolean' },
  seed: { type: 'string' },
  only: { type: 'string' },
  out: { type: 'string' },
  latency: { type: 'string' },
  clients: { type: 'string' },
  down: { type: 'string' },
  outage: { type: 'string' },
  capacity: { type: 'string' },
  retries: { type: 'string' },
  'min-clients': { type: 'string' },
  'max-clients': { type: 'string' },
  step: { type: 'string' },
  runs: { type: 'string' },
  base: { type: 'string' },
  rate: { type: 'string' },
  duration: { type: 'string' },
  'fail-from': { type: 'string' },
  'fail-to': { type: 'string' },
  'dead-rate': { type: 'string' },
  'dead-for': { type: 'string' },
  limit: { type: 'string' },
  'pace-rate': { type: 'string' },
  'pace-for': { type: 'string' },
} as const;

type Sizes = Readonly<Record<string, number>>;

const DEFAULT_SIZES: Sizes = {
  seed: 1,
  latency: 10,
  clients: 1000,
  down: 10,
  capacity: 200,
  retries: 10,
  'min-clients': 10,
  'max-clients': 190,
  step: 10,
  runs: 5,
  base: 5,
  rate: 100,
  duration: 60,
  'fail-from': 10,
  'fail-to': 40,
  'dead-rate': 100,
  'dead-for': 60,
  limit: 20,
  'pace-rate': 50,
  'pace-for': 4,
};

/** `--quick`: the same shapes, scaled down (capacity with the herd, so recovery takes as long). */
const QUICK_SIZES: Sizes = {
  ...DEFAULT_SIZES,
  clients: 100,
  capacity: 20,
  'min-clients': 10,
  'max-clients': 50,
  step: 20,
  runs: 2,
  rate: 20,
  duration: 20,
  'fail-from': 5,
  'fail-to': 12,
  'dead-rate': 20,
  'dead-for': 20,
  limit: 10,
  'pace-rate': 25,
  'pace-for': 2,
};

interface Limits {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

const LIMITS: Readonly<Record<string, Limits>> = {
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  latency: { min: 0, max: 10_000, integer: false },
  clients: { min: 1, max: 1_000_000, integer: true },
  down: { min: 0, max: 3600, integer: false },
  capacity: { min: 1, max: 1_000_000, integer: false },
  retries: { min: 0, max: 100, integer: true },
  'min-clients': { min: 1, max: 100_000, integer: true },
  'max-clients': { min: 1, max: 100_000, integer: true },
  step: { min: 1, max: 100_000, integer: true },
  runs: { min: 1, max: 1000, integer: true },
  base: { min: 0, max: 2000, integer: false },
  rate: { min: 0.001, max: 100_000, integer: false },
  duration: { min: 0.001, max: 86_400, integer: false },
  'fail-from': { min: 0, max: 86_400, integer: false },
  'fail-to': { min: 0, max: 86_400, integer: false },
  'dead-rate': { min: 0.001, max: 10_000, integer: false },
  'dead-for': { min: 0.001, max: 3600, integer: false },
  limit: { min: 1, max: 100_000, integer: true },
  'pace-rate': { min: 0.001, max: 100_000, integer: false },
  'pace-for': { min: 0.001, max: 3600, integer: false },
};

/** The matrix's fleets and outages (s), and the smaller ones of `--quick`. */
const MATRIX_CLIENTS = [300, 1000, 5000];
const MATRIX_OUTAGES = [3, 10, 30];
const QUICK_MATRIX_CLIENTS = [100, 300];
const QUICK_MATRIX_OUTAGES = [3, 10];
/** The matrix's limits per list item. */
const OUTAGE_LIMITS: Limits = { min: 0, max: 3600, integer: false };

/** The repository root (this file is examples/simulator/src/cli.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Where charts go by default: `.simulate/` at the repository root (gitignored). */
export const DEFAULT_OUT = join(REPO_ROOT, '.simulate');

function numberFlag(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const limits = LIMITS[name] as Limits;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (
    !Number.isFinite(value) ||
    value < limits.min ||
    value > limits.max ||
    (limits.integer && !Number.isInteger(value))
  ) {
    const kind = limits.integer ? 'an integer' : 'a number';
    throw new RangeError(
      `Expected \`--${name}\` to be ${kind} from ${limits.min} to ${limits.max}, got ${JSON.stringify(text)}.`,
    );
  }
  return value;
}

/** A comma-separated list of numbers, each within `limits` (the flag's). */
function listFlag(
  name: string,
  text: string | undefined,
  fallback: readonly number[],
  limits: Limits,
): number[] {
  if (text === undefined) return [...fallback];
  const items = text.split(',').map((item) => item.trim());
  const kind = limits.integer ? 'integers' : 'numbers';
  const values = items.map((item) => (item === '' ? Number.NaN : Number(item)));
  if (
    values.some(
      (v) =>
        !Number.isFinite(v) || v < limits.min || v > limits.max || (limits.integer && !Number.isInteger(v)),
    )
  ) {
    throw new RangeError(
      `Expected \`--${name}\` to be a comma-separated list of ${kind} from ${limits.min} to ${limits.max}, got ${JSON.stringify(text)}.`,
    );
  }
  return values;
}

/**
 * Parses the command line. Throws a TypeError (unknown flag, bad list) or RangeError (a number out of range)
 * naming the flag; returns `undefined` for `--help`. A relative `--out` is taken from the repository root
 * (`pnpm --filter` runs the script inside the package folder, so the caller's folder is not at hand).
 */
export function parseCli(args: readonly string[]): SimulationConfig | undefined {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...args], options: FLAGS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new TypeError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return undefined;
  const [command, ...extra] = parsed.positionals;
  if (extra.length > 0 || (command !== undefined && command !== 'herd-matrix')) {
    throw new TypeError(
      `Expected no command or \`herd-matrix\`, got ${JSON.stringify(parsed.positionals.join(' '))}.`,
    );
  }
  const matrix = command === 'herd-matrix';
  if (matrix && v.only !== undefined)
    throw new TypeError('Expected no `--only` with `herd-matrix`: it runs alone.');
  if (!matrix && v.outage !== undefined) throw new TypeError('Expected `--outage` only with `herd-matrix`.');
  const sizes = v.quick ? QUICK_SIZES : DEFAULT_SIZES;
  const n = (name: keyof typeof DEFAULT_SIZES & keyof typeof FLAGS) =>
    numberFlag(name, v[name] as string | undefined, sizes[name] as number);

  const scenarios = (matrix ? 'herd-matrix' : (v.only ?? SCENARIOS.join(',')))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of scenarios) {
    if (!matrix && !(SCENARIOS as readonly string[]).includes(s)) {
      throw new TypeError(`Expected \`--only\` to list ${SCENARIOS.join(', ')}, got ${JSON.stringify(s)}.`);
    }
  }
  if (scenarios.length === 0) throw new TypeError('Expected `--only` to name at least one scenario.');

  const seed = n('seed');
  const latency = n('latency');
  const minClients = n('min-clients');
  const maxClients = n('max-clients');
  if (minClients > maxClients) {
    throw new RangeError(
      `Expected \`--min-clients\` (${minClients}) to be at most \`--max-clients\` (${maxClients}).`,
    );
  }
  const failFrom = n('fail-from') * 1000;
  const failTo = n('fail-to') * 1000;
  if (failFrom >= failTo) {
    throw new RangeError(
      `Expected \`--fail-from\` (${failFrom / 1000}) to be before \`--fail-to\` (${failTo / 1000}).`,
    );
  }
  const out = v.out === undefined ? DEFAULT_OUT : isAbsolute(v.out) ? v.out : resolve(REPO_ROOT, v.out);

  return {
    seed,
    out,
    scenarios: matrix ? ['herd-matrix'] : SCENARIOS.filter((s) => scenarios.includes(s)),
    herd: {
      clients: matrix ? (sizes.clients as number) : n('clients'),
      downFor: n('down') * 1000,
      capacity: n('capacity'),
      retries: n('retries'),
      latency,
      seed,
    },
    contention: {
      baseDelay: n('base'),
      minClients,
      maxClients,
      step: n('step'),
      runs: n('runs'),
      latency,
      seed,
    },
    amplification: { rate: n('rate'), duration: n('duration') * 1000, failFrom, failTo, latency, seed },
    deadBackend: {
      rate: n('dead-rate'),
      downFrom: 10_000,
      downTo: 10_000 + n('dead-for') * 1000,
      duration: 10_000 + n('dead-for') * 1000 + 30_000,
      latency,
      seed,
    },
    pacing: {
      limit: n('limit'),
      windowMs: 1000,
      rate: n('pace-rate'),
      duration: n('pace-for') * 1000,
      retries: 20,
      latency,
      seed,
    },
    herdMatrix: {
      clients: matrix
        ? listFlag(
            'clients',
            v.clients,
            v.quick ? QUICK_MATRIX_CLIENTS : MATRIX_CLIENTS,
            LIMITS.clients as Limits,
          )
        : MATRIX_CLIENTS,
      outages: listFlag('outage', v.outage, v.quick ? QUICK_MATRIX_OUTAGES : MATRIX_OUTAGES, OUTAGE_LIMITS),
      capacity: n('capacity'),
      latency,
      seed,
      startSpread: 100,
      options: { deadline: 120_000 },
    },
  };
}
