const NODE_ENV = 'process.env.NODE_ENV';

/**
 * `process.env.NODE_ENV` read so that it never throws: a browser page loading the package with no bundler has no
 * `process`, and a missing one means development (the full messages).
 */
const guardedNodeEnv = {
  name: 'guarded-node-env',
  transform(code: string) {
    return code.includes(NODE_ENV) ? code.replaceAll(NODE_ENV, 'globalThis.process?.env?.NODE_ENV') : null;
  },
};

/**
 * The two builds of a package. `dist/`: ESM and CJS with their declarations, for Node and for a page with no
 * bundler, `process.env.NODE_ENV` read guarded. `dist/bundler/`: ESM with `process.env.NODE_ENV` as written, which
 * bundlers replace (`'production'` in a production build, so the development messages are left out); package.json
 * exports it under the `module` condition, first, which bundlers read and Node does not.
 */
export function builds<Config extends object>(config: Config): Config[] {
  // `Config` is tsdown's UserConfig, which the packages import (tsdown is theirs, not the workspace root's).
  return [
    { ...config, plugins: [guardedNodeEnv] },
    {
      ...config,
      format: ['esm'],
      dts: false,
      outDir: 'dist/bundler',
      clean: false,
      hooks: {},
      onSuccess: undefined,
    } as Config,
  ];
}
