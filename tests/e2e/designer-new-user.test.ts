import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { RunningFixture } from '../support/server-fixture.ts';
import { until } from '../support/server-fixture.ts';
import { box, browserMissing, createRoute, designerSuite } from './browser.ts';

// What a new user's first run of the designer found, replayed in Chromium on the route they drew:
// a chat-app step, then SMS on its undeliverable and expired outcomes, the SMS step stored first.
const missing = browserMissing();

let fixture: RunningFixture;
let page: Page;
const pageErrors: string[] = [];
let routeId = '';

type Box = { x: number; y: number; width: number; height: number };
const intersect = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

const mode = (name: string) => page.getByRole('navigation', { name: 'Mode' }).getByRole('button', { name });
/** The step ids of a table's rows, by their first cell. */
const firstCells = (table: Locator) => table.locator('tr').evaluateAll((rows) => rows.map((r) => r.querySelector('td')?.textContent ?? ''));

/** Sends a cascade on the route and waits until its SMS step (the second tried) has an outcome. */
async function sendAndSettle(toPhone: string) {
  const res = await fixture.call('/api/CascadeMessage/send_message/async', {
    json: [{ toPhone, fromName: 'Acme', text: 'hi', route: routeId }],
  });
  const [sent] = (await res.json()) as { messageId: string }[];
  type Status = { steps: { id: string; status: string | null }[] };
  const read = async () => (await (await fixture.call(`/api/CascadeMessage/status_guid/${sent!.messageId}`)).json()) as Status;
  await until(read, (s) => s.steps.find((x) => x.id === 'sms')?.status != null, 400);
}

/** The steps and handles drawn under the minimap or the zoom controls, by what they are. */
async function covered(): Promise<string[]> {
  const corners = [await box(page.locator('.react-flow__minimap')), await box(page.locator('.react-flow__controls'))];
  const drawn = await page.locator('.react-flow__node, .react-flow__handle').all();
  const out: string[] = [];
  for (const el of drawn) {
    const at = await box(el);
    if (corners.some((c) => intersect(at, c)))
      out.push((await el.getAttribute('data-testid')) ?? (await el.getAttribute('data-id')) ?? '?');
  }
  return out;
}

/** Edge labels drawn over another edge's line: points of each edge's path, on the screen, inside another edge's label. */
async function labelsOverOtherEdges(): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const edges = [...document.querySelectorAll<SVGGElement>('.react-flow__edge')];
    for (const edge of edges) {
      const label = document.querySelector(`[data-testid="edge-label-${edge.dataset.id}"]`);
      if (!label) continue;
      const r = label.getBoundingClientRect();
      for (const other of edges) {
        if (other === edge) continue;
        const path = other.querySelector<SVGPathElement>('path.react-flow__edge-path');
        const ctm = path?.getScreenCTM();
        if (!path || !ctm) continue;
        const length = path.getTotalLength();
        for (let i = 0; i <= 80; i++) {
          const p = new DOMPoint(path.getPointAtLength((length * i) / 80).x, path.getPointAtLength((length * i) / 80).y).matrixTransform(
            ctm,
          );
          if (p.x > r.left + 1 && p.x < r.right - 1 && p.y > r.top + 1 && p.y < r.bottom - 1) {
            found.push(`${label.textContent} × edge ${other.dataset.id}`);
            break;
          }
        }
      }
    }
    return found;
  });
}

describe.skipIf(missing)('designer, a new user’s first run, in Chromium', { timeout: 90_000 }, () => {
  designerSuite(
    pageErrors,
    (s) => ({ fixture, page } = s),
    async (f) => {
      fixture = f;
      routeId = await createRoute(f, {
        name: 'chat, then sms (designer)',
        start: 'chatapp',
        steps: [
          { id: 'sms', channel: 'sms', position: { x: 0, y: 220 } },
          { id: 'chatapp', channel: 'chatapp', timeoutSeconds: 1, position: { x: 0, y: 0 } },
        ],
        edges: [
          { from: 'chatapp', to: 'sms', on: 'undeliverable' },
          { from: 'chatapp', to: 'sms', on: 'expired' },
        ],
      });
      // Traffic on both edges: undeliverable on the chat app (…01), and no report there until its 1 s timeout (…04).
      await sendAndSettle('99900000001');
      await sendAndSettle('99900000004');
    },
  );

  it('names the timeout only when the step has one, and each outcome handle by a word over it', async () => {
    await page.getByTestId(`route-${routeId}`).click();
    await page.locator('.react-flow__node[data-id="sms"]').waitFor();
    expect(await page.locator('.step-node').allTextContents()).not.toContainEqual(expect.stringContaining('ttl share'));
    expect(await page.getByTestId('step-sms').locator('.step-meta').count()).toBe(0);
    expect(await page.getByTestId('step-chatapp').locator('.step-meta').textContent()).toBe('timeout 1 s');
    const words = { undeliverable: 'undeliv.', permanenterror: 'perm. err', expired: 'expired', not_read: 'not read' };
    for (const [on, word] of Object.entries(words)) {
      const label = page.getByTestId(`handle-label-sms-${on}`);
      expect(await label.textContent()).toBe(word);
      const [l, h, node] = [await box(label), await box(page.getByTestId(`handle-sms-${on}`)), await box(page.getByTestId('step-sms'))];
      // Over its own handle, inside the step.
      expect(Math.abs(l.x + l.width / 2 - (h.x + h.width / 2))).toBeLessThan(2);
      expect(l.y + l.height).toBeLessThanOrEqual(h.y + 1);
      expect(intersect(l, node) && l.x >= node.x && l.x + l.width <= node.x + node.width).toBe(true);
    }
  });

  it('fits the route clear of the minimap and the zoom controls, however it is fitted', async () => {
    expect(await covered()).toEqual([]);
    await page.getByRole('toolbar').getByRole('button', { name: 'Zoom to fit', exact: true }).click();
    await expect.poll(covered).toEqual([]);
    await page.locator('.react-flow__controls-fitview').click();
    await expect.poll(covered).toEqual([]);
    // Fitted still: the route is drawn as large as it may be (its maximum zoom).
    expect(Math.round((await box(page.getByTestId('step-sms'))).width)).toBe(Math.round(220 * 1.2));
  });

  it('offers 999…06 (not on this channel) among the test numbers, and lists the steps in the route’s order', async () => {
    await mode('Simulate').click();
    const numbers = await page.locator('select[name="test-number"] option').allTextContents();
    expect(numbers.at(-1)).toBe('999…06: not on the chat channels (refused at once); SMS delivers');
    expect(await firstCells(page.locator('table.outcomes'))).toEqual([expect.stringMatching(/^chatapp/), expect.stringMatching(/^sms/)]);
    await page.locator('select[name="test-number"]').selectOption('06');
    expect(await page.locator('select[name="outcome-chatapp"]').inputValue()).toBe('not_on_channel');
    expect(await page.locator('select[name="outcome-sms"]').inputValue()).toBe('delivered');
    await page.getByRole('button', { name: 'Start' }).click();
    const status = page.getByTestId('record-status');
    for (let i = 0; i < 8 && (await status.textContent()) !== 'delivered'; i++) await page.getByRole('button', { name: 'Step ▶' }).click();
    expect(await status.textContent()).toBe('delivered');
    expect(await firstCells(page.getByTestId('record-steps'))).toEqual(['chatapp', 'sms']);
    const history = await page.getByTestId('history').locator('li').allTextContents();
    expect(history[0]).toMatch(/Chat-app business Failed not_on_channel: the recipient is not on this channel \(simulator\)/);
  });

  it('fills From with an approved alpha-name, says which route the test runs, and lists its steps in the route’s order', async () => {
    await mode('Watch').click();
    await page.getByText('Send a test cascade', { exact: true }).click();
    await expect.poll(() => page.getByLabel(/^From/).inputValue()).toBe('Acme');
    expect(
      await page
        .getByTestId('approved-alpha-names')
        .locator('option')
        .evaluateAll((o) => o.map((x) => x.getAttribute('value'))),
    ).toEqual(['Acme', 'Promo']);
    expect(await page.getByTestId('test-route').textContent()).toBe(
      `Runs the route open in the editor, “chat, then sms (designer)”, at its saved revision (${routeId}@1), whatever route the alpha-name is bound to.`,
    );
    await page.getByLabel(/^To/).fill('99900000006');
    await page.getByRole('button', { name: 'Send and watch' }).click();
    await page.getByTestId('record-status').filter({ hasText: 'delivered' }).waitFor();
    await page.locator('.react-flow__node[data-id="sms"]').waitFor();
    await expect.poll(() => firstCells(page.getByTestId('record-steps'))).toEqual(['chatapp', 'sms']);
  });

  it('draws no traffic label over the other edge', async () => {
    await mode('Traffic').click();
    // Three cascades by now: the two sent first, and the test cascade of Watch (not on the chat app: undeliverable).
    await page
      .getByTestId('edge-label-e1')
      .filter({ hasText: /^expired · 1 \(\d+%\)$/ })
      .waitFor();
    expect(await page.getByTestId('edge-label-e0').textContent()).toMatch(/^undeliverable · \d \(\d+%\)$/);
    expect(await labelsOverOtherEdges()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('exports a route never saved under its name, with no stray dash', async () => {
    await mode('Edit').click();
    await page.getByRole('navigation', { name: 'Routes' }).getByRole('button', { name: '+ New route' }).click();
    await page.getByLabel('Name').fill('chat, then sms (designer)');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    expect((await download).suggestedFilename()).toBe('chat-then-sms-designer.route.json');
    expect(pageErrors).toEqual([]);
  });
});
