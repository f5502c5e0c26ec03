import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { box, browserMissing, createRoute, designerSuite } from './browser.ts';

// Gaps of the designer (undo of typing, copy and paste of a multi-selection, Ctrl+S outside Edit,
// the mode error boundary), replayed in Chromium against the built designer.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];

/** Accepts the page's next question (`window.confirm`): opening another draft asks before dropping unsaved changes. */
function acceptNext() {
  page.once('dialog', (d) => void d.accept());
}

/** Shift-drags a selection box around these steps, as a user selects several. */
async function boxSelect(ids: string[]) {
  const boxes = await Promise.all(ids.map((id) => box(page.locator(`.react-flow__node[data-id="${id}"]`))));
  const left = Math.min(...boxes.map((b) => b.x)) - 30;
  const top = Math.min(...boxes.map((b) => b.y)) - 30;
  const right = Math.max(...boxes.map((b) => b.x + b.width)) + 30;
  const bottom = Math.max(...boxes.map((b) => b.y + b.height)) + 30;
  await page.keyboard.down('Shift');
  await page.mouse.move(left, top);
  await page.mouse.down();
  await page.mouse.move(right, bottom, { steps: 10 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
}

const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
const edge = (from: string, to: string) => page.locator(`.react-flow__edge[aria-label="Edge from ${from} to ${to}"]`);

describe.skipIf(missing)('designer gaps in Chromium', { timeout: 60_000 }, () => {
  designerSuite(
    pageErrors,
    (s) => ({ fixture, page } = s),
    async (f) => {
      fixture = f;
      await createRoute(fixture, {
        name: 'Copy and paste',
        start: 'a',
        steps: [
          { id: 'a', channel: 'chatapp', position: { x: 0, y: 0 } },
          { id: 'b', channel: 'sms', position: { x: 0, y: 200 } },
          { id: 'c', channel: 'flashcall', position: { x: 700, y: 0 } },
        ],
        edges: [
          { from: 'a', to: 'b', on: 'undeliverable' },
          { from: 'a', to: 'c', on: 'expired' },
        ],
      });
    },
  );

  it('copies, pastes and deletes every step of a box selection, not only the panel’s one step', async () => {
    await page.locator('.route-item', { hasText: 'Copy and paste' }).click();
    await node('c').waitFor();
    await page.getByRole('button', { name: 'Zoom to fit' }).click();
    await page.waitForTimeout(300);

    // Ctrl+click adds a step to the selection; both are copied, with the edge between them.
    await node('c').click();
    await node('a').click({ modifiers: ['Control'] });
    await expect.poll(() => page.locator('.react-flow__node.selected').count()).toBe(2);
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await edge('a_2', 'c_2').waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(3);

    await boxSelect(['a', 'b']);
    await expect.poll(() => page.locator('.react-flow__node.selected').count()).toBe(2);
    await page.keyboard.press('Control+c');
    // Delete removes the whole selection with its edges; Undo brings it back.
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(1);
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(3);

    await page.keyboard.press('Control+v');
    await node('a_2').waitFor();
    await node('b_2').waitFor();
    await edge('a_2', 'b_2').waitFor();
    // The pasted steps are the selection now.
    await expect
      .poll(() => page.locator('.react-flow__node.selected').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))))
      .toEqual(['a_2', 'b_2']);
    await page.keyboard.press('Control+v');
    await edge('a_3', 'b_3').waitFor();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(7);
    // a→c is not copied (c was not selected): the original two edges and one per paste.
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(4);
    const [first, second] = [await box(node('a_2')), await box(node('a_3'))];
    expect(second.x).toBeGreaterThan(first.x);
    expect(second.y).toBeGreaterThan(first.y);
  });

  it('undoes a word typed into a step’s label or the route’s name with one Undo', async () => {
    acceptNext();
    await page.getByRole('button', { name: '+ New route' }).click();
    await node('sms').click();
    const label = page.locator('input[name="step-label"]');
    await label.pressSequentially('hello');
    await expect.poll(() => node('sms').locator('.step-title').textContent()).toBe('hello');
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await label.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Redo' }).click();
    expect(await label.inputValue()).toBe('hello');

    const name = page.getByLabel('Name');
    await name.press('End');
    await name.pressSequentially(' draft');
    expect(await name.inputValue()).toBe('New route draft');
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await name.inputValue()).toBe('New route');
    expect(await label.inputValue()).toBe('hello');
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await label.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);
  });

  it('saves with Ctrl+S in Simulate, Watch and Traffic, and never lets the browser open "Save page as"', async () => {
    // Records, after every handler ran, whether Ctrl+S kept its browser default.
    await page.evaluate(() => {
      const w = window as unknown as { prevented: boolean[] };
      w.prevented = [];
      window.addEventListener('keydown', (e) => {
        if (e.key.toLowerCase() === 's' && e.ctrlKey) setTimeout(() => w.prevented.push(e.defaultPrevented));
      });
    });
    const prevented = () => page.evaluate(() => (window as unknown as { prevented: boolean[] }).prevented);
    const name = page.getByLabel('Name');
    const mode = (m: string) => page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: m }).click();

    await name.fill('Saved in Simulate');
    await mode('Simulate');
    await page.getByRole('button', { name: 'Start' }).waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('button', { name: /Saved in Simulate/ }).waitFor();

    await mode('Edit');
    await name.fill('Saved in Watch');
    await mode('Watch');
    await page.keyboard.press('Control+s');
    await page.getByRole('button', { name: /Saved in Watch/ }).waitFor();

    await mode('Edit');
    await name.fill('Saved in Traffic');
    await mode('Traffic');
    await page.getByRole('heading', { name: 'Traffic of revision 2' }).waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('heading', { name: 'Traffic of revision 3' }).waitFor();
    // Nothing left to save: still no "Save page as".
    await page.keyboard.press('Control+s');
    await expect.poll(prevented).toEqual([true, true, true, true]);

    await mode('Edit');
    await expect(page.getByTestId('route-origin').textContent()).resolves.toMatch(/revision 3$/);
    expect(await name.inputValue()).toBe('Saved in Traffic');
  });

  it('shows a mode that throws while rendering as its error, keeps the unsaved draft, and starts the mode afresh', async () => {
    const name = page.getByLabel('Name');
    await name.fill('Unsaved when Traffic failed');
    // Stats the designer does not expect (no steps, no edges): the traffic view throws while rendering.
    await page.route('**/api/routes/*/stats**', (r) =>
      r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ cascades: 1 }) }),
    );
    await page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: 'Traffic' }).click();
    const failure = page.getByRole('alert').filter({ hasText: 'This mode failed:' });
    await failure.waitFor();
    await expect(failure.textContent()).resolves.toMatch(/not iterable/);
    // The rest of the designer is still there.
    await page.getByRole('navigation', { name: 'Routes' }).waitFor();
    await page.unroute('**/api/routes/*/stats**');

    await failure.getByRole('button', { name: 'back to editing' }).click();
    expect(await name.inputValue()).toBe('Unsaved when Traffic failed');
    await expect(page.getByTestId('route-origin').textContent()).resolves.toMatch(/revision 3 · unsaved changes/);
    await page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: 'Traffic' }).click();
    await page.getByTestId('traffic-summary').waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'This mode failed:' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
