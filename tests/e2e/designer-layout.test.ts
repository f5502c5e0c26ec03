import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { box, browserMissing, createRoute, designerSuite, markRenders, renderedSince } from './browser.ts';

// The side panels are resized by their separators (pointer, keyboard, double-click), keep their
// widths across reloads, and the canvas takes the rest, React Flow's view following it.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];

const left = () => page.locator('aside.left');
const side = () => page.locator('aside.side');
const canvas = () => page.locator('.canvas-area .react-flow');
const routesSeparator = () => page.getByRole('separator', { name: 'Resize the route list' });
const sideSeparator = () => page.getByRole('separator', { name: 'Resize the side panel' });
const widthOf = async (locator: Locator) => Math.round((await box(locator)).width);
const valueOf = async (separator: Locator) => Number(await separator.getAttribute('aria-valuenow'));

/** Drags a separator by `dx` pixels, in small moves as a hand does. */
async function dragBy(separator: Locator, dx: number) {
  const b = await box(separator);
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps: 10 });
  await page.mouse.up();
}

/** Whether every step of the open route is drawn inside the canvas. */
async function allStepsInside() {
  const area = await box(canvas());
  const steps = await page.locator('.react-flow__node').all();
  for (const step of steps) {
    const b = await box(step);
    if (b.x < area.x || b.y < area.y || b.x + b.width > area.x + area.width || b.y + b.height > area.y + area.height) return false;
  }
  return steps.length > 0;
}

describe.skipIf(missing)('designer layout in Chromium', { timeout: 60_000 }, () => {
  designerSuite(
    pageErrors,
    (s) => ({ fixture, page } = s),
    async (f) => {
      fixture = f;
      await createRoute(fixture, {
        name: 'Wide route',
        start: 'a',
        steps: [
          { id: 'a', channel: 'chatapp', position: { x: 0, y: 0 } },
          { id: 'b', channel: 'sms', position: { x: 900, y: 0 } },
          { id: 'c', channel: 'flashcall', position: { x: 1800, y: 300 } },
        ],
        edges: [
          { from: 'a', to: 'b', on: 'undeliverable' },
          { from: 'b', to: 'c', on: 'undeliverable' },
        ],
      });
    },
  );

  it('gives the canvas the side panel’s place while there is no side panel (no route open yet)', async () => {
    const area = page.locator('main.canvas-area');
    await area.getByRole('heading', { name: 'No route open' }).waitFor();
    expect(await side().count()).toBe(0);
    expect(await sideSeparator().count()).toBe(0);
    // The whole width but the route list and its separator: no empty 340 px column on the right.
    const b = await box(area);
    expect(Math.round(b.width)).toBe(1440 - 240 - 1);
    expect(Math.round(b.x + b.width)).toBe(1440);
  });

  it('starts at 240 px + canvas + 340 px, with a focusable separator beside each panel', async () => {
    await page.locator('.route-item', { hasText: 'Wide route' }).click();
    await page.locator('.react-flow__node[data-id="c"]').waitFor();
    expect(await widthOf(left())).toBe(240);
    expect(await widthOf(side())).toBe(340);
    // 1440 px less both panels and the two 1 px separators.
    expect(await widthOf(canvas())).toBe(1440 - 240 - 340 - 2);
    for (const [separator, width] of [
      [routesSeparator(), 240],
      [sideSeparator(), 340],
    ] as const) {
      expect(await separator.getAttribute('aria-orientation')).toBe('vertical');
      expect(await separator.getAttribute('tabindex')).toBe('0');
      expect(await valueOf(separator)).toBe(width);
      expect(Number(await separator.getAttribute('aria-valuemin'))).toBeLessThan(width);
      expect(Number(await separator.getAttribute('aria-valuemax'))).toBeGreaterThan(width);
    }
    expect(await routesSeparator().getAttribute('aria-controls')).toBe(await left().getAttribute('id'));
    expect(await sideSeparator().getAttribute('aria-controls')).toBe(await side().getAttribute('id'));
  });

  it('widens and narrows each panel by dragging its separator, the canvas taking the rest, React Flow following', async () => {
    const before = await widthOf(canvas());
    // A resize renders the grid and its separators only: not the workspace's header, nor the
    // editor's toolbar, nor a step of the route (React skips the layout's unchanged children).
    const untouched = 'header.top, .toolbar, .react-flow__node .step-node';
    expect(await markRenders(page, untouched)).toBe(5);
    await dragBy(routesSeparator(), 100);
    expect(await renderedSince(page, untouched)).toEqual([]);
    expect(await widthOf(left())).toBe(340);
    expect(await valueOf(routesSeparator())).toBe(340);
    expect(await widthOf(canvas())).toBe(before - 100);

    await dragBy(sideSeparator(), -160); // to the left: the side panel grows
    expect(await widthOf(side())).toBe(500);
    expect(await valueOf(sideSeparator())).toBe(500);
    expect(await widthOf(canvas())).toBe(before - 260);

    // The view is kept as it was (the canvas lost 260 px on the right of the fitted route, which
    // cuts off its right-most step), and React Flow measured its new size: zoom to fit fits the
    // route into the narrower canvas.
    expect(await allStepsInside()).toBe(false);
    await page.getByRole('button', { name: 'Zoom to fit' }).click();
    await expect.poll(allStepsInside).toBe(true);

    // Limits: the route list stops at its maximum, the side panel at its minimum.
    await dragBy(routesSeparator(), 2000);
    const max = Number(await routesSeparator().getAttribute('aria-valuemax'));
    expect(max).toBe(480);
    expect(await widthOf(left())).toBe(max);
    await dragBy(sideSeparator(), 2000);
    const min = Number(await sideSeparator().getAttribute('aria-valuemin'));
    expect(min).toBe(260);
    expect(await widthOf(side())).toBe(min);
    await dragBy(routesSeparator(), 300 - max);
    expect(await widthOf(left())).toBe(300);
    await dragBy(sideSeparator(), min - 420); // to 420 px
    expect(await widthOf(side())).toBe(420);
  });

  it('keeps the chosen widths across a reload', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Routes' }).waitFor();
    expect(await widthOf(left())).toBe(300);
    await page.locator('.route-item', { hasText: 'Wide route' }).click();
    await page.locator('.react-flow__node[data-id="c"]').waitFor();
    expect(await widthOf(side())).toBe(420);
    expect(await widthOf(canvas())).toBe(1440 - 300 - 420 - 2);
    // The first fit of the opened route is already made in the canvas as resized.
    await expect.poll(allStepsInside).toBe(true);
  });

  it('moves a focused separator with the arrow keys, Shift for bigger steps, Home and End to the limits', async () => {
    await routesSeparator().focus();
    await page.keyboard.press('ArrowRight');
    expect(await widthOf(left())).toBe(310);
    await page.keyboard.press('Shift+ArrowLeft');
    expect(await widthOf(left())).toBe(260);
    expect(await valueOf(routesSeparator())).toBe(260);
    await page.keyboard.press('Home');
    expect(await widthOf(left())).toBe(Number(await routesSeparator().getAttribute('aria-valuemin')));
    await page.keyboard.press('End');
    expect(await widthOf(left())).toBe(Number(await routesSeparator().getAttribute('aria-valuemax')));

    // The side panel's separator moves the same way: to the left it widens the panel on its right.
    await sideSeparator().focus();
    const side0 = await widthOf(side());
    await page.keyboard.press('ArrowLeft');
    expect(await widthOf(side())).toBe(side0 + 10);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await widthOf(side())).toBe(side0 - 10);
    expect(await valueOf(sideSeparator())).toBe(side0 - 10);
  });

  it('restores the default width on a double-click, and keeps it', async () => {
    await routesSeparator().dblclick();
    expect(await widthOf(left())).toBe(240);
    await sideSeparator().dblclick();
    expect(await widthOf(side())).toBe(340);
    expect(await widthOf(canvas())).toBe(1440 - 240 - 340 - 2);
    await page.reload();
    await page.locator('.route-item', { hasText: 'Wide route' }).click();
    await page.locator('.react-flow__node[data-id="c"]').waitFor();
    expect(await widthOf(left())).toBe(240);
    expect(await widthOf(side())).toBe(340);
  });

  it('leaves the canvas room on a narrow window and gives the panels back their widths on a wide one', async () => {
    await dragBy(routesSeparator(), 1000);
    await dragBy(sideSeparator(), -1000);
    const wide = { left: await widthOf(left()), side: await widthOf(side()) };
    await page.setViewportSize({ width: 1024, height: 768 });
    // The canvas keeps its minimum; the panels give way, the route list down to its own (160),
    // the side panel to what is left (1024 - 2 - 320 - 160 = 542). Polled: the relayout follows the resize.
    await expect.poll(() => widthOf(left())).toBe(160);
    expect(await widthOf(side())).toBe(542);
    expect(await widthOf(canvas())).toBeGreaterThanOrEqual(320);
    expect((await widthOf(left())) + (await widthOf(side())) + (await widthOf(canvas())) + 2).toBe(1024);
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect.poll(() => widthOf(left())).toBe(wide.left);
    expect(await widthOf(side())).toBe(wide.side);
    expect(pageErrors).toEqual([]);
  });

  it('gives the canvas the whole width when a mode fails, and the side panel its own again after', async () => {
    // Stats the designer does not expect: the traffic view throws while rendering (as in designer-gaps).
    await page.route('**/api/routes/*/stats**', (r) =>
      r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ cascades: 1 }) }),
    );
    await page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: 'Traffic' }).click();
    const failed = page.locator('main.canvas-area').filter({ has: page.getByRole('alert') });
    await failed.waitFor();
    await page.unroute('**/api/routes/*/stats**');
    expect(await side().count()).toBe(0);
    expect(Math.round((await box(failed)).width)).toBe(1440 - (await widthOf(left())) - 1);
    await failed.getByRole('button', { name: 'back to editing' }).click();
    await expect.poll(() => widthOf(canvas())).toBe(1440 - (await widthOf(left())) - (await widthOf(side())) - 2);
    expect(pageErrors).toEqual([]);
  });
});
