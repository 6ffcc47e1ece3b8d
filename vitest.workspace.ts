// The list of test projects. Vitest 4 does not read this file by itself:
// vitest.config.ts imports it as `test.projects`.
export default ['packages/*', 'examples/*'];
