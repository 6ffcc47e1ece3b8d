// The four packages are released as one: one version, one Node range, and READMEs that link each other by URLs
// that work on npmjs.com (a relative link there leads nowhere).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKED, packageDir, ROOT } from '../src/repo.ts';

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  repository?: { url?: string };
}

const manifests = CHECKED.map(
  (name) => JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as Manifest,
);
const changesets = JSON.parse(readFileSync(join(ROOT, '.changeset/config.json'), 'utf8')) as {
  fixed: string[][];
};

describe('the published packages', () => {
  it('share one version', () => {
    const core = manifests[0]?.version;
    expect(manifests.map((manifest) => [manifest.name, manifest.version])).toEqual(
      manifests.map((manifest) => [manifest.name, core]),
    );
  });

  it('are one fixed group for changesets, so that a release bumps them together', () => {
    expect(changesets.fixed.map((group) => [...group].sort())).toContainEqual([...CHECKED].sort());
  });

  it('ask for the same Node, the one backoff-core needs', () => {
    expect(manifests.map((manifest) => [manifest.name, manifest.engines?.node])).toEqual(
      manifests.map((manifest) => [manifest.name, '>=22']),
    );
  });

  it.each(CHECKED)(
    '%s: its README links by absolute URL, to the repository its package.json names',
    (name) => {
      const readme = readFileSync(join(packageDir(name), 'README.md'), 'utf8');
      const repository = manifests.find((manifest) => manifest.name === name)?.repository?.url ?? '';
      const home = repository.replace(/^git\+/, '').replace(/\.git$/, '');
      expect(home).toBe('https://github.com/backoff/backoff');
      const targets = [...readme.matchAll(/\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm)].map(
        (match) => match[1] ?? match[2] ?? '',
      );
      const relative = targets.filter((target) => !/^(https?:|mailto:|#)/.test(target));
      expect(relative, 'relative links are dead on npmjs.com: link the repository').toEqual([]);
      const ours = targets.filter((target) => target.includes('github.com/backoff/'));
      for (const target of ours) expect(target.startsWith(`${home}/`)).toBe(true);
    },
  );
});
