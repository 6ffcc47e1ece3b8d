import type { Browser, BrowserContext, Page } from 'playwright-core';
import { inject } from 'vitest';

/** A page of the built site in a context of its own, with page errors surfaced in the test's failure. */
export async function openPage(
  browser: Browser,
  path: string,
  setup: (context: BrowserContext) => Promise<void> = async () => {},
  contextOptions: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await browser.newContext(contextOptions);
  await setup(context);
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(`${inject('siteUrl')}${path}`);
  return { context, page, errors };
}
