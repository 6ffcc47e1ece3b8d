import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

// The Chromium that arrives with `pnpm install`: @sparticuz/chromium (a devDependency pinned exactly) carries a
// brotli-packed chrome-headless-shell for Linux x64 in its npm tarball, so nothing but the npm registry is needed.
// Its `executablePath()` unpacks into os.tmpdir() (/tmp/chromium, shared by every checkout and version, reused
// blindly when present), so the unpacking runs in a child process whose TMPDIR is a folder of our own, once per
// package version, in this example's node_modules/.cache (gone with node_modules).

/** The npm tarball holds the x64 Linux build only. */
const PACKAGED_PLATFORM = 'linux-x64';

/** Whether the packaged Chromium can run on this machine. */
export function packagedChromiumRuns(): boolean {
  return `${process.platform}-${process.arch}` === PACKAGED_PLATFORM;
}

/** The unpacked browser. */
export interface PackagedChromium {
  /** The npm package's version; its major is Chromium's (153.0.0 holds Chromium 153). */
  readonly version: string;
  readonly executablePath: string;
  /**
   * NSS, NSPR and expat as the package ships them (its `al2023` layer), for `LD_LIBRARY_PATH`: with them the
   * binary needs nothing from the system but glibc (2.34 or later), not even the libnss3 package.
   */
  readonly libraryPath: string;
}

const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
const packageRoot = join(dirname(entry), '..');
const cacheRoot = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

/** What the child runs: the package's own unpacking, Chromium and fonts, then the shared libraries. */
const UNPACK = `
const [entry, bin] = process.argv.slice(1);
const { default: chromium, inflate } = await import(entry);
await chromium.executablePath(bin);
await inflate(bin + '/al2023.tar.br');
`;

function layout(dir: string, version: string): PackagedChromium {
  return { version, executablePath: join(dir, 'chromium'), libraryPath: join(dir, 'al2023', 'lib') };
}

/**
 * Unpacks the packaged Chromium unless this version already is (about 210 MB on disk), and says where it is.
 * The unpacking goes to a temporary folder renamed into place at the end, so a run that was killed halfway, or
 * two runs at once, never leave a half-written browser where the next run would take it.
 */
export async function unpackPackagedChromium(): Promise<PackagedChromium & { unpackedNow: boolean }> {
  if (!packagedChromiumRuns()) {
    throw new Error(
      `The packaged Chromium (@sparticuz/chromium) is a ${PACKAGED_PLATFORM} build and this is ` +
        `${process.platform}-${process.arch}: install Chrome or Chromium, or set CHROMIUM_PATH.`,
    );
  }
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  const target = join(cacheRoot, `sparticuz-chromium-${version}`);
  if (existsSync(target)) return { ...layout(target, version), unpackedNow: false };

  await mkdir(cacheRoot, { recursive: true });
  const staging = await mkdtemp(`${target}.partial-`);
  try {
    await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', UNPACK, pathToFileURL(entry).href, join(packageRoot, 'bin')],
      { env: { ...process.env, TMPDIR: staging }, timeout: 120_000 },
    );
    try {
      await rename(staging, target);
    } catch (error) {
      // Another run got there first: its copy is complete (it was renamed whole), ours goes.
      if (!existsSync(target)) throw error;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const unpacked = layout(target, version);
  for (const path of [unpacked.executablePath, unpacked.libraryPath]) {
    if (!existsSync(path)) throw new Error(`@sparticuz/chromium ${version} unpacked without ${path}`);
  }
  return { ...unpacked, unpackedNow: true };
}
