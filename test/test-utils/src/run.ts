// Commands a test starts in a child process: an install, a packer, another test runner.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd: string;
  /** A hard limit: the child is killed after it, so a hung install cannot hang the test run. */
  readonly timeout: number;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs a command without a shell and resolves with its exit code and output (it never rejects for a non-zero
 * exit: callers assert on the code and show the output). Asynchronous, so a server in this process keeps serving.
 */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        timeout: options.timeout,
        killSignal: 'SIGKILL',
        env: options.env ?? process.env,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        const killed = error?.killed ? `\n(killed after ${options.timeout} ms)` : '';
        resolvePromise({ code, stdout, stderr: `${stderr}${killed}` });
      },
    );
  });
}

/** Output of a finished command, for an assertion message. */
export function describeRun(what: string, result: RunResult): string {
  return `${what} exited with ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** One test of a suite as jest's JSON report (and vitest's `json` reporter, which writes the same) gives it. */
export interface ReportedTest {
  readonly fullName: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}

/** A finished suite: how its runner exited, and its tests. */
export interface SuiteRun extends RunResult {
  readonly passed: number;
  readonly failed: readonly ReportedTest[];
  readonly tests: readonly ReportedTest[];
}

/**
 * Runs a test runner (jest, vitest) in a child process with `args`, which must make it write its JSON report to
 * `report`; reads the report back. The report's folder is the caller's (a temporary one).
 */
export async function runSuite(
  command: string,
  args: readonly string[],
  options: RunOptions & { readonly report: string },
): Promise<SuiteRun> {
  const result = await run(command, args, options);
  let tests: ReportedTest[] = [];
  try {
    const report = JSON.parse(await readFile(options.report, 'utf8')) as {
      testResults: { assertionResults: ReportedTest[] }[];
    };
    tests = report.testResults.flatMap((file) => file.assertionResults);
  } catch (error) {
    throw new Error(
      `${describeRun(`${command} ${args.join(' ')}`, result)}\n--- no report: ${String(error)}`,
    );
  }
  return {
    ...result,
    tests,
    passed: tests.filter((test) => test.status === 'passed').length,
    failed: tests.filter((test) => test.status === 'failed'),
  };
}
