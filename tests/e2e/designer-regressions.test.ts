import { describe, expect, it } from 'vitest';
import type { Dialog, Page } from 'playwright-core';
import { browserMissing, designerSuite } from './browser.ts';

// Regressions a tester found in Chromium against the built designer, replayed there.
const missing = browserMissing();

let page: Page;
const pageErrors: string[] = [];

/** Answers the page's next question (`window.confirm`) with `accept`; the questions asked, as it gets them. */
function answerNext(accept: boolean): string[] {
  const questions: string[] = [];
  page.once('dialog', (d) => {
    questions.push(d.message());
    void (accept ? d.accept() : d.dismiss());
  });
  return questions;
}

describe.skipIf(missing)('designer regressions in Chromium', { timeout: 60_000 }, () => {
  designerSuite(pageErrors, (s) => ({ page } = s));

  it('refuses an invalid simulation ttl in the form instead of blanking the app', async () => {
    await page.getByRole('navigation', { name: 'Routes' }).getByRole('button', { name: '+ New route' }).click();
    await page.getByLabel('Name').fill('Unsaved draft');
    await page.getByRole('button', { name: 'Simulate' }).click();
    for (const ttl of ['-1', '1.5', '2592001']) {
      await page.locator('input[name="sim-ttl"]').fill(ttl);
      await page.getByRole('alert').filter({ hasText: 'ttl must be a whole number of seconds from 1 to 2592000' }).waitFor();
      expect(await page.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    }
    await page.locator('input[name="sim-ttl"]').fill('60');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByTestId('sim-clock').waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('Unsaved draft');
    expect(pageErrors).toEqual([]);
  });

  it('asks before "+ New route" drops unsaved changes', async () => {
    const questions = answerNext(false);
    await page.getByRole('button', { name: '+ New route' }).click();
    expect(questions).toEqual(['Discard the unsaved changes of the open route?']);
    expect(await page.getByLabel('Name').inputValue()).toBe('Unsaved draft');
    answerNext(true);
    await page.getByRole('button', { name: '+ New route' }).click();
    await expect.poll(() => page.getByLabel('Name').inputValue()).toBe('New route');
  });

  it('refuses a step id another step has, keeping the step and its id', async () => {
    await page.getByRole('button', { name: '+ RCS' }).click();
    await page.locator('.react-flow__node[data-id="rcs"]').click();
    await page.locator('input[name="step-id"]').fill('sms');
    await page.locator('input[name="step-id"]').press('Tab');
    await page.getByRole('alert').filter({ hasText: "'sms' is already the id of another step" }).waitFor();
    expect(await page.locator('input[name="step-id"]').inputValue()).toBe('rcs');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
    await page.locator('.react-flow__node[data-id="rcs"]').waitFor();
  });

  it('disables Save on a route unchanged since its save', async () => {
    await page.getByRole('button', { name: 'Delete step' }).click();
    expect(await page.getByTestId('save').isDisabled()).toBe(false); // a new route can be saved
    await page.getByTestId('save').click();
    await page.getByTestId('route-origin').filter({ hasText: 'revision 1' }).waitFor();
    await expect.poll(() => page.getByTestId('save').isDisabled()).toBe(true);
    await page.keyboard.press('Control+s');
    await page.getByLabel('Name').fill('Changed');
    expect(await page.getByTestId('save').isDisabled()).toBe(false);
    await expect(page.getByTestId('route-origin').textContent()).resolves.toMatch(/revision 1 · unsaved changes/);
  });

  it('shows the details of a refused test cascade, and stops watching an unknown id', async () => {
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.getByText('Send a test cascade', { exact: true }).click();
    // The test runs the open route, whose rename is not saved yet: saved first, as the form asks.
    await page.keyboard.press('Control+s');
    await page.getByTestId('test-route').filter({ hasText: '@2)' }).waitFor();
    await page.getByLabel(/^From/).fill('NotMine');
    await page.getByRole('button', { name: 'Send and watch' }).click();
    await page.locator('.error', { hasText: '[0].fromName: alpha-name "NotMine" is not' }).waitFor();

    await page.getByPlaceholder('trackinId or message GUID').fill('no-such-cascade');
    await page.getByRole('button', { name: 'Watch', exact: true }).last().click();
    await page.locator('.error', { hasText: "No cascade 'no-such-cascade' was found" }).first().waitFor();
  });

  it('saves with Ctrl+S while typing in the route name, and always keeps the browser from "Save page as"', async () => {
    // "+ New route" asks to discard the last test's changes.
    const onDialog = (d: Dialog) => void d.accept();
    page.on('dialog', onDialog);
    try {
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('button', { name: '+ New route' }).click();
      // Records, after every handler ran, whether Ctrl+S kept its browser default.
      await page.evaluate(() => {
        const w = window as unknown as { prevented: boolean[] };
        w.prevented = [];
        window.addEventListener('keydown', (e) => {
          if (e.key.toLowerCase() === 's' && e.ctrlKey) setTimeout(() => w.prevented.push(e.defaultPrevented));
        });
      });
      const prevented = () => page.evaluate(() => (window as unknown as { prevented: boolean[] }).prevented);
      await page.getByLabel('Name').fill('Saved by keyboard');
      await page.getByLabel('Name').press('Control+s');
      await page.getByTestId('route-origin').filter({ hasText: 'revision 1' }).waitFor();
      // Nothing left to save: still no "Save page as".
      await page.getByLabel('Name').press('Control+s');
      await expect.poll(prevented).toEqual([true, true]);
      await page.getByRole('button', { name: /Saved by keyboard/ }).waitFor();
    } finally {
      page.off('dialog', onDialog);
    }
  });

  it('keeps a long unbroken step label inside its node, with the whole label in a tooltip', async () => {
    const label = 'A'.repeat(120);
    await page.locator('.react-flow__node[data-id="sms"]').click();
    await page.locator('input[name="step-label"]').fill(label);
    const title = page.getByTestId('step-sms').locator('.step-title');
    await expect.poll(() => title.textContent()).toBe(label);
    expect(await title.getAttribute('title')).toBe(label);
    // Nothing drawn past the node's edge: its content is no wider than the node.
    const node = await page.getByTestId('step-sms').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(node.scroll).toBeLessThanOrEqual(node.client);
  });

  it('deletes a saved route after asking, and removes it from the list', async () => {
    await page.getByTestId('save').click();
    await page.getByTestId('route-origin').filter({ hasText: 'revision 2' }).waitFor();
    const item = page.getByRole('button', { name: /Saved by keyboard/ });
    await item.waitFor();
    const questions = answerNext(false);
    await page.getByRole('button', { name: 'Delete route' }).click();
    expect(questions).toEqual(['Delete the route "Saved by keyboard"? This cannot be undone.']);
    expect(await item.count()).toBe(1);
    answerNext(true);
    await page.getByRole('button', { name: 'Delete route' }).click();
    await expect.poll(() => item.count()).toBe(0);
    await page.getByRole('heading', { name: 'No route open' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
