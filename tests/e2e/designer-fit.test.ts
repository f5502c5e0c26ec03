import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { box, browserMissing, createRoute, designerSuite } from './browser.ts';

// What must fit at a 1440×900 window with the panels at their first widths: a field and its
// buttons on one line, the editor's toolbar on one line, each label of parallel edges clear of
// the others and of the steps.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];

type Box = { x: number; y: number; width: number; height: number };
const intersect = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const topOf = async (locator: Locator) => Math.round((await box(locator)).y);

/** Opens a route of the list and waits until its steps are drawn. */
async function openRoute(testId: string, steps: number) {
  await page.getByTestId(testId).click();
  await expect.poll(() => page.locator('.react-flow__node').count()).toBe(steps);
  await expect.poll(() => page.locator('.edge-label').count()).toBeGreaterThan(0);
}

/** Pairs of edge labels that intersect each other, and labels that intersect a step, by their text. */
async function crowdedLabels(): Promise<string[]> {
  const labels = await Promise.all(
    (await page.locator('.edge-label').all()).map(async (l) => ({ text: await l.textContent(), at: await box(l) })),
  );
  const steps = await Promise.all(
    (await page.locator('.react-flow__node').all()).map(async (n) => ({ id: await n.getAttribute('data-id'), at: await box(n) })),
  );
  const crowded: string[] = [];
  labels.forEach((a, i) => {
    for (const b of labels.slice(i + 1)) if (intersect(a.at, b.at)) crowded.push(`${a.text} × ${b.text}`);
    for (const s of steps) if (intersect(a.at, s.at)) crowded.push(`${a.text} × step ${s.id}`);
  });
  return crowded;
}

describe.skipIf(missing)('designer fit at 1440×900 in Chromium', { timeout: 60_000 }, () => {
  let parallelId: string;

  designerSuite(
    pageErrors,
    (s) => ({ fixture, page } = s),
    async (f) => {
      fixture = f;
      parallelId = await createRoute(fixture, {
        name: 'Parallel edges',
        start: 'a',
        steps: [
          { id: 'a', channel: 'chatapp', position: { x: 0, y: 0 } },
          { id: 'b', channel: 'sms', position: { x: 0, y: 220 } },
        ],
        edges: [
          { from: 'a', to: 'b', on: 'undeliverable' },
          { from: 'a', to: 'b', on: 'expired' },
        ],
      });
    },
  );

  it('keeps the labels of two parallel edges clear of each other and of the steps', async () => {
    await openRoute(`route-${parallelId}`, 2);
    expect(await page.locator('.edge-label').allTextContents()).toEqual(['undeliverable', 'expired']);
    expect(await crowdedLabels()).toEqual([]);
  });

  it('keeps the labels of three parallel edges (the built-in default cascade) clear of each other and of the steps', async () => {
    await openRoute('route-default', 5);
    expect(await page.locator('.edge-label').count()).toBe(12);
    expect(await crowdedLabels()).toEqual([]);
  });

  it('draws the whole toolbar on one line, each button named', async () => {
    await openRoute(`route-${parallelId}`, 2);
    const buttons = await page.getByRole('toolbar').getByRole('button').all();
    const names = [
      ...['+ Messenger bot', '+ Chat-app bot', '+ Chat-app business', '+ RCS', '+ SMS', '+ Flash call'],
      ...['Undo', 'Redo', 'Auto-layout', 'Zoom to fit'],
    ];
    expect(buttons).toHaveLength(names.length);
    for (const name of names) await page.getByRole('toolbar').getByRole('button', { name, exact: true }).waitFor();
    const tops = new Set(await Promise.all(buttons.map(topOf)));
    expect([...tops]).toHaveLength(1);
  });

  it('puts a field and its button on one line, the field taking the rest of the line', async () => {
    // Edit: the binding's alpha-name and Bind.
    const alphaName = page.locator('input[name="alpha-name"]');
    const bind = page.getByRole('button', { name: 'Bind', exact: true });
    expect(await topOf(bind)).toBe(await topOf(alphaName));
    const line = await box(alphaName.locator('xpath=..'));
    const bindBox = await box(bind);
    // The field reaches the button (the row's 6 px gap), the button the row's end.
    expect(Math.round((await box(alphaName)).x + (await box(alphaName)).width + 6)).toBe(Math.round(bindBox.x));
    expect(Math.round(bindBox.x + bindBox.width)).toBe(Math.round(line.x + line.width));

    // Traffic: the window and Refresh.
    await page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: 'Traffic' }).click();
    const refresh = page.getByRole('button', { name: 'Refresh' });
    expect(await topOf(refresh)).toBe(await topOf(page.locator('select[name="window"]')));

    // Watch: the cascade's id and Watch.
    await page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name: 'Watch' }).click();
    const watchId = page.getByPlaceholder('trackinId or message GUID');
    const watch = page.getByRole('region', { name: 'Watch' }).getByRole('button', { name: 'Watch', exact: true });
    expect(await topOf(watch)).toBe(await topOf(watchId));
    expect(pageErrors).toEqual([]);
  });
});
