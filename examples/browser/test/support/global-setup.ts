import type { TestProject } from 'vitest/node';
import { serveSite } from './site.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the built pages are served, e.g. http://127.0.0.1:40123 (no trailing slash). */
    siteUrl: string;
  }
}

/** Builds and serves the pages once for every test file of the project; stops the server at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const site = await serveSite();
  project.provide('siteUrl', site.url);
  return () => site.close();
}
