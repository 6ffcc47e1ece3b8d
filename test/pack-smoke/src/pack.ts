import { describeRun, needsBuild, PUBLISHED, type PublishedName, packageDir, run } from './repo.ts';

export interface Packed {
  readonly name: PublishedName;
  readonly version: string;
  /** Absolute path of the tarball. */
  readonly tarball: string;
  /** Paths inside the tarball, as `pnpm pack` lists them. */
  readonly files: readonly string[];
  /** The package.json inside the tarball: what the registry would get. */
  readonly manifest: PackedManifest;
}

/** The fields of a packed package.json that the checks read. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
}

export interface PackOptions {
  /**
   * `true` runs the package's `prepack` (a fresh tsdown build); `false` packs the dist/ that is there, for
   * callers that run while other processes may read dist/ (a build deletes it first).
   */
  readonly build: boolean;
  readonly timeout?: number;
}

/**
 * `pnpm pack` (what `pnpm publish` and `changeset publish` send): `publishConfig.exports` replaces `exports`, and
 * `workspace:` ranges become real versions.
 */
export async function pack(name: PublishedName, destination: string, options: PackOptions): Promise<Packed> {
  const args = ['pack', '--json', '--pack-destination', destination];
  if (!options.build) args.push('--config.ignore-scripts=true');
  const result = await run('pnpm', args, { cwd: packageDir(name), timeout: options.timeout ?? 60_000 });
  if (result.code !== 0) throw new Error(describeRun(`pnpm pack (${name})`, result));
  // With `prepack`, pnpm prints the build's log before the JSON: the JSON is the last `{` block at a line start.
  const start = result.stdout.lastIndexOf('\n{');
  const json = JSON.parse(result.stdout.slice(start + 1)) as {
    name: string;
    version: string;
    filename: string;
    files: { path: string }[];
  };
  // npm puts every file of a tarball under `package/`; `tar -O` prints one to stdout (GNU tar and bsdtar alike).
  const extract = await run('tar', ['-xzOf', json.filename, 'package/package.json'], {
    cwd: destination,
    timeout: 30_000,
  });
  if (extract.code !== 0) throw new Error(describeRun(`tar (package.json of ${json.filename})`, extract));
  return {
    name,
    version: json.version,
    tarball: json.filename,
    files: json.files.map((file) => file.path),
    manifest: JSON.parse(extract.stdout) as PackedManifest,
  };
}

/**
 * Every published package, packed into `destination` as it is built. `pnpm test` builds just before; a run of one
 * test file alone builds what is missing or stale first. Packing never rebuilds: other test projects running at the
 * same time must not see dist/ disappear.
 */
export async function packPublished(destination: string): Promise<Record<PublishedName, Packed>> {
  for (const name of PUBLISHED) {
    if (!needsBuild(name)) continue;
    const build = await run('pnpm', ['run', 'build'], { cwd: packageDir(name), timeout: 60_000 });
    if (build.code !== 0) throw new Error(describeRun(`build of ${name}`, build));
  }
  const packed = {} as Record<PublishedName, Packed>;
  for (const name of PUBLISHED) packed[name] = await pack(name, destination, { build: false });
  return packed;
}
