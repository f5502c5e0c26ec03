import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); no downloaded browser. */
export const CHROMIUM = process.env.SPILLWAY_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install -y chromium): the designer's browser tests are skipped`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/**
 * Chromium at a 1440×900 page on the designer of the server at `url`, signed in with `apiKey`:
 * the set-up of the browser regression suites. Errors the page throws are pushed to `pageErrors`.
 */
export async function openSignedIn(url: string, apiKey: string, pageErrors: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${url}/designer/`);
  await page.getByLabel('API key', { exact: true }).fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Routes' }).waitFor();
  return { browser, page };
}
