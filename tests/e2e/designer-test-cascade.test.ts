import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { browserMissing, designerSuite } from './browser.ts';

// The test cascade of the Watch mode runs the route open in the editor (it named no route, so the
// alpha-name's binding ran instead): here Promo is bound to route A (SMS) and route B (RCS) is open.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];
let a: { id: string };
let b: { id: string };

async function createRoute(name: string, channel: string): Promise<{ id: string }> {
  const res = await fixture.call('/api/routes', { json: { name, start: channel, steps: [{ id: channel, channel }], edges: [] } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

const mode = (name: string) => page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name });

/** Opens Watch and its test form. */
async function openTestForm() {
  await mode('Watch').click();
  await page.getByText('Send a test cascade', { exact: true }).click();
}

/** What the test form says of the route the test runs. */
const testRouteNote = async () => (await page.getByTestId('test-route').textContent()) ?? '';

/** Sends the test cascade from Promo to a number delivered on the first channel tried. */
async function sendTest() {
  await page.getByLabel(/^To/).fill('99900000000');
  await page.getByLabel(/^From/).fill('Promo');
  await page.getByRole('button', { name: 'Send and watch' }).click();
}

describe.skipIf(missing)('designer test cascade in Chromium', { timeout: 60_000 }, () => {
  designerSuite(
    pageErrors,
    (s) => ({ fixture, page } = s),
    async (f) => {
      fixture = f;
      a = await createRoute('Route A, SMS', 'sms');
      expect((await fixture.call(`/api/routes/${a.id}/binding`, { method: 'PUT', json: { alphaName: 'Promo' } })).status).toBe(200);
      b = await createRoute('Route B, RCS', 'rcs');
    },
  );

  it('runs the open route B, not route A bound to the alpha-name', async () => {
    await page.getByTestId(`route-${b.id}`).click();
    await openTestForm();
    await sendTest();
    await page.getByTestId('record-status').filter({ hasText: 'delivered' }).waitFor();
    await expect(page.getByTestId('watch-route').textContent()).resolves.toContain(`route ${b.id}@1`);
    await page.locator('.react-flow__node[data-id="rcs"] .step-node.status-delivered').waitFor();
    expect(await page.getByTestId('history').locator('li').first().textContent()).toMatch(/RCS Sent/);
    // The form says which route it runs.
    expect(await testRouteNote()).toContain(`the route open in the editor, “Route B, RCS”, at its saved revision (${b.id}@1)`);
    expect(pageErrors).toEqual([]);
  });

  it('asks to save unsaved changes first, then tests the revision saved', async () => {
    await mode('Edit').click();
    await page.getByLabel('Name').fill('Route B, renamed');
    await openTestForm();
    expect(await testRouteNote()).toMatch(/unsaved changes.*save/i);
    expect(await page.getByRole('button', { name: 'Send and watch' }).isDisabled()).toBe(true);
    await page.keyboard.press('Control+s');
    await expect.poll(testRouteNote).toContain(`${b.id}@2`);
    await sendTest();
    await expect.poll(() => page.getByTestId('watch-route').textContent()).toContain(`route ${b.id}@2`);
  });

  it('asks to save a route never saved, and tests a built-in route open read-only', async () => {
    await mode('Edit').click();
    await page.getByRole('navigation', { name: 'Routes' }).getByRole('button', { name: '+ New route' }).click();
    await openTestForm();
    expect(await testRouteNote()).toMatch(/never saved.*save/i);
    expect(await page.getByRole('button', { name: 'Send and watch' }).isDisabled()).toBe(true);

    await mode('Edit').click();
    // The new draft was never edited: opening another route drops it without asking.
    await page.getByTestId('route-messenger-first').click();
    await openTestForm();
    expect(await testRouteNote()).toContain('messenger-first@1');
    await sendTest();
    await expect.poll(() => page.getByTestId('watch-route').textContent()).toContain('route messenger-first@1');
    expect(pageErrors).toEqual([]);
  });
});
