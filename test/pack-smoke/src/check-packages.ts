// `pnpm check:packages`: publint --strict and attw on each published package, as it is packed for publishing.
//
// Both tools read the tarball that `pnpm pack` makes (the `prepack` script builds it fresh), not the package
// folder: `attw --pack` would run `npm pack`, which ignores `publishConfig.exports` and keeps `workspace:`
// ranges, so it would check a package.json that is never published (one with the repo-only `@backoff/source`
// condition). Exits non-zero when any check fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from './pack.ts';
import { CHECKED, run } from './repo.ts';

const work = mkdtempSync(join(tmpdir(), 'backoff-check-packages-'));
const failures: string[] = [];
try {
  for (const name of CHECKED) {
    const packed = await pack(name, work, { build: true });
    const publint = await run('publint', ['run', '--strict', packed.tarball], { cwd: work, timeout: 60_000 });
    // node16 profile: the packages need Node >= 22, and node10 resolution knows no subpath exports (`/adapter`).
    const attw = await run(
      'attw',
      ['--no-color', '--format', 'table', '--profile', 'node16', packed.tarball],
      {
        cwd: work,
        timeout: 60_000,
      },
    );
    process.stdout.write(`\n=== ${name}@${packed.version}: ${packed.files.join(', ')}\n`);
    process.stdout.write(`--- publint --strict\n${publint.stdout}${publint.stderr}`);
    process.stdout.write(`--- attw\n${attw.stdout}${attw.stderr}`);
    if (publint.code !== 0) failures.push(`${name}: publint --strict exited with ${publint.code}`);
    if (attw.code !== 0) failures.push(`${name}: attw exited with ${attw.code}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  process.stderr.write(`\ncheck:packages failed:\n${failures.map((line) => `- ${line}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`\ncheck:packages: publint --strict and attw clean for ${CHECKED.join(', ')}\n`);
