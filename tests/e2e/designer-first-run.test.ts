import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { box, browserMissing, designerSuite } from './browser.ts';

// A first-time user's first minutes (sign in, nothing open yet, open and edit a route, delete it),
// with the keyboard as much as the mouse, replayed in Chromium against the built designer.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];

const canvasArea = () => page.locator('main.canvas-area');
const emptyCanvasNew = () => canvasArea().getByRole('button', { name: '+ New route' });
const mode = (name: string) => page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name, exact: true });
const node = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
const stepPanel = () => page.getByRole('region', { name: 'Step', exact: true });
const isFocused = (locator: Locator) => locator.evaluate((el) => el === document.activeElement);

/** Accepts the page's next question (`window.confirm`): deleting a route asks first. */
function acceptNext() {
  page.once('dialog', (d) => void d.accept());
}

/** Stores a route of two steps through the API; its id. */
async function storeRoute(name: string): Promise<string> {
  const res = await fixture.call('/api/routes', {
    json: {
      name,
      start: 'a',
      steps: [
        { id: 'a', channel: 'chatapp', position: { x: 0, y: 0 } },
        { id: 'b', channel: 'sms', position: { x: 0, y: 200 } },
      ],
      edges: [{ from: 'a', to: 'b', on: 'undeliverable' }],
    },
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  // The route list reads the routes at sign-in and after the designer's own saves: a reload shows this one.
  await page.reload();
  await page.locator('.route-item', { hasText: name }).waitFor();
  return id;
}

describe.skipIf(missing)('a first run of the designer in Chromium', { timeout: 60_000 }, () => {
  designerSuite(pageErrors, (s) => ({ fixture, page } = s));

  it('says what to do on the empty canvas after sign-in, its "+ New route" focused, opening a draft as the list’s does', async () => {
    await canvasArea().getByRole('heading', { name: 'No route open' }).waitFor();
    await expect(canvasArea().textContent()).resolves.toContain('Pick a route on the left, or create one.');
    // The sign-in form went away with the focus: the way on has it, so Enter goes on from there.
    await expect.poll(() => isFocused(emptyCanvasNew())).toBe(true);
    // The modes that need a route say why they are off, as Traffic did.
    expect(await mode('Simulate').getAttribute('title')).toBe('Open a route to simulate it');
    expect(await mode('Traffic').getAttribute('title')).toBe('Save the route to see its traffic');
    await page.keyboard.press('Enter');
    expect(await page.getByLabel('Name').inputValue()).toBe('New route');
    await expect(page.getByTestId('route-origin').textContent()).resolves.toBe('Not saved yet');
    await node('sms').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('opens a step’s settings with Enter on the focused step, and keeps its arrow-key moves as an edit, undone at once and saved', async () => {
    const id = await storeRoute('Keyboard route');
    await page.locator('.route-item', { hasText: 'Keyboard route' }).click();
    await node('b').waitFor();
    const x0 = (await box(node('a'))).x;

    // React Flow selects the focused step by itself; the side panel used to stay on the route.
    await node('a').focus();
    await page.keyboard.press('Enter');
    await stepPanel().waitFor();
    expect(await stepPanel().getByLabel('Id').inputValue()).toBe('a');

    // The arrow keys move the selected step: each press used to move the drawing only, so the
    // route never changed, and the next redraw put the step back.
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.getByTestId('route-origin').filter({ hasText: 'unsaved changes' }).waitFor();
    expect((await box(node('a'))).x).toBeGreaterThan(x0);
    // The three presses are one undo entry, as typing a word is.
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await box(node('a'))).x).toBeCloseTo(x0, 0);
    expect(await page.getByTestId('route-origin').textContent()).not.toContain('unsaved changes');

    await node('a').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.getByTestId('save').click();
    await page.getByTestId('route-origin').filter({ hasText: 'revision 2' }).waitFor();
    const stored = (await (await fixture.call(`/api/routes/${id}`)).json()) as { steps: { id: string; position: { x: number } }[] };
    expect(stored.steps.find((s) => s.id === 'a')?.position.x).toBeGreaterThan(0);

    // Escape lets the step go, and Enter on a focused edge opens the edge's settings.
    await node('a').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => stepPanel().count()).toBe(0);
    await page.locator('.react-flow__edge[aria-label="Edge from a to b"]').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Edge' }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('brings back the empty canvas when the open route is deleted, with the focus on its "+ New route"', async () => {
    acceptNext();
    await page.getByRole('button', { name: 'Delete route' }).click();
    await canvasArea().getByRole('heading', { name: 'No route open' }).waitFor();
    // The focus was on "Delete route", which went with the route.
    await expect.poll(() => isFocused(emptyCanvasNew())).toBe(true);
    expect(await page.locator('aside.side').count()).toBe(0);
  });

  for (const [chosen, title] of [
    ['Simulate', 'Nothing to simulate'],
    ['Traffic', 'No traffic to show'],
  ] as const) {
    it(`says so in ${chosen} when the route is deleted while ${chosen} is chosen, instead of drawing nothing`, async () => {
      await storeRoute(`Deleted in ${chosen}`);
      await page.locator('.route-item', { hasText: `Deleted in ${chosen}` }).click();
      await node('b').waitFor();
      // The deletion is held at the server's door while the user picks the mode.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/routes/*', async (r) => {
        if (r.request().method() !== 'DELETE') return r.fallback();
        await held;
        return r.fallback();
      });
      acceptNext();
      await page.getByRole('button', { name: 'Delete route' }).click();
      await mode(chosen).click();
      await node('b').waitFor();
      release();
      await canvasArea().getByRole('heading', { name: title }).waitFor();
      await page.unroute('**/api/routes/*');
      await emptyCanvasNew().click();
      expect(await page.getByLabel('Name').inputValue()).toBe('New route');
      expect(await mode('Edit').getAttribute('class')).toBe('on');
      expect(pageErrors).toEqual([]);
    });
  }

  it('says how to watch a cascade while none is watched, and shows a failed watch in the error’s colour', async () => {
    await mode('Watch').click();
    await canvasArea().getByRole('heading', { name: 'No cascade watched' }).waitFor();
    await expect(canvasArea().textContent()).resolves.toContain('send a test cascade');
    await page.getByPlaceholder('trackinId or message GUID').fill('no-such-cascade');
    await page.getByPlaceholder('trackinId or message GUID').press('Enter');
    const failed = canvasArea().locator('.error');
    await failed.waitFor();
    // The canvas's grey used to win over the error's red.
    // Beside an empty note of the same canvas (the grey), drawn for the comparison and taken away.
    const colours = await failed.evaluate((el) => {
      const grey = document.createElement('p');
      grey.className = 'empty';
      el.parentElement!.append(grey);
      const read = [
        getComputedStyle(el).color,
        getComputedStyle(document.querySelector('aside.side .error')!).color,
        getComputedStyle(grey).color,
      ];
      grey.remove();
      return read;
    });
    expect(colours[0]).toBe(colours[1]);
    expect(colours[0]).not.toBe(colours[2]);
    expect(pageErrors).toEqual([]);
  });
});
