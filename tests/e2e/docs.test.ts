import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { API_KEY, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { browserMissing, launchChromium } from './browser.ts';

// /docs in real headless Chromium: Scalar's reference renders the operations of /openapi.json,
// finds one by search, sends the documented example with the user's key, and fetches nothing from
// anywhere but the server.
const missing = browserMissing();

let fixture: RunningFixture;
let browser: Browser;
let page: Page;
const elsewhere: string[] = [];

describe.skipIf(missing)(missing ? `/docs in Chromium (skipped: ${missing})` : '/docs in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    fixture = await startServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
    page.on('requestfinished', (r) => {
      if (!r.url().startsWith(fixture.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) elsewhere.push(r.url());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('renders the operations, finds one by search, and fetches nothing from elsewhere', async () => {
    const res = await page.goto(`${fixture.url}/docs`);
    expect(res?.headers()['content-security-policy']).toContain("connect-src 'self'");
    // The messaging API is the first group, open: its operations are in the sidebar.
    await page
      .getByRole('button', { name: /Send messages \(one campaign/ })
      .first()
      .waitFor();
    await expect(page.getByRole('button', { name: /Status of a message/ }).count()).resolves.toBeGreaterThan(0);

    await page.locator('button', { hasText: 'Search' }).first().click();
    await page.getByRole('combobox', { name: 'Enter search query' }).filter({ visible: true }).fill('wallet');
    const hit = page
      .getByRole('option', { name: /Wallet history/ })
      .filter({ visible: true })
      .first();
    await hit.waitFor();
    await hit.click();
    await page.getByRole('heading', { name: 'Wallet history' }).filter({ visible: true }).first().waitFor();
    expect(elsewhere).toEqual([]);
  });

  it("offers no Ask AI (Scalar's agent uploads the document to Scalar's servers), though opened on a local address", async () => {
    await page.goto(`${fixture.url}/docs`);
    await page
      .getByRole('button', { name: /Send messages \(one campaign/ })
      .first()
      .waitFor();
    await expect(page.getByRole('button', { name: /Ask AI/ }).count()).resolves.toBe(0);
    await expect(page.getByPlaceholder(/Ask AI/).count()).resolves.toBe(0);
  });

  it('says what to install when the script is missing (@scalar/api-reference, an optional peer dependency, not installed)', async () => {
    const errors: string[] = [];
    const onError = (error: Error) => errors.push(error.message);
    page.on('pageerror', onError);
    await page.route('**/docs/scalar.js', (route) =>
      route.fulfill({ status: 501, contentType: 'application/json', body: '{"error":"not_configured"}' }),
    );
    try {
      await page.goto(`${fixture.url}/docs`);
      await page.getByText(/needs the package @scalar\/api-reference/).waitFor();
      await expect(page.getByText('npm install @scalar/api-reference', { exact: false }).count()).resolves.toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await page.unroute('**/docs/scalar.js');
      page.off('pageerror', onError);
    }
  });

  it("tries an operation with the user's key: the example send is accepted by the server", async () => {
    await page.goto(`${fixture.url}/docs`);
    await page.getByLabel('Value').filter({ visible: true }).first().fill(API_KEY);
    await page
      .getByRole('button', { name: /Test Request/ })
      .filter({ visible: true })
      .first()
      .click();
    const answer = page.waitForResponse((r) => r.url().endsWith('/bat/messagelist'));
    await page.locator('button:visible', { hasText: 'Send Request' }).first().click();
    const res = await answer;
    expect(res.request().headers()['x-authorization-key']).toBe(API_KEY);
    expect(res.status()).toBe(200);
    const { messages } = (await res.json()) as { messages: Array<{ messageId: number; customerMessageId: string }> };
    expect(messages[0]!.customerMessageId).toBe('order-1001-shipped');
    const status = await fixture.call(`/bat/message/${messages[0]!.messageId}`);
    expect(status.status).toBe(200);
  });
});
