import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { buildIfStale } from '../../apps/designer/scripts/build-if-stale.ts';
import { API_KEY, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

/** Debian's Chromium (`apt-get install chromium`); no downloaded browser. */
export const CHROMIUM = process.env.SPILLWAY_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install -y chromium): the designer's browser tests are skipped`;
}

/** Where `locator` is drawn on the page; throws when it is not. */
export async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('element is not visible');
  return b;
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

/** What a designer suite works with once its set-up ran. */
export interface DesignerSession {
  fixture: RunningFixture;
  browser: Browser;
  page: Page;
}

/**
 * The set-up of a designer suite, registered in the calling `describe`: the designer built if
 * stale, a server started, `prepare` run on it (the routes the suite draws), then Chromium signed
 * in ({@link openSignedIn}, page errors into `pageErrors`); `ready` is handed them. Closed after
 * the suite.
 */
export function designerSuite(
  pageErrors: string[],
  ready: (session: DesignerSession) => void,
  prepare?: (fixture: RunningFixture) => Promise<void>,
): void {
  let session: Partial<DesignerSession> = {};
  beforeAll(async () => {
    buildIfStale();
    const fixture = await startServer();
    session = { fixture };
    await prepare?.(fixture);
    const { browser, page } = await openSignedIn(fixture.url, API_KEY, pageErrors);
    session = { fixture, browser, page };
    ready(session as DesignerSession);
  }, 120_000);
  afterAll(async () => {
    await session.browser?.close();
    await session.fixture?.close();
  });
}

/** Stores `route` through the API (`POST /api/routes`, a 201 expected) for a suite to draw; its id. */
export async function createRoute(fixture: RunningFixture, route: Record<string, unknown>): Promise<string> {
  const res = await fixture.call('/api/routes', { json: route });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/**
 * Remembers the props React DOM last committed to each element `selector` matches, so that
 * `renderedSince` can tell which of them their component has rendered again since.
 *
 * Why this tells a render: React DOM keeps the props it last committed on each element (an
 * internal `__reactProps$…` key, read by its event system, in production builds too) and replaces
 * them only when it commits the element again, which it does whenever the owning component
 * renders (every render makes a fresh props object; React 19's completeWork marks an update on
 * `current.memoizedProps !== newProps`). A memoised component that bails out leaves the very same
 * object in place. Nothing is added to the product for this: it reads what React DOM keeps anyway.
 */
export async function markRenders(page: Page, selector: string): Promise<number> {
  return page.evaluate((selector) => {
    const marks = new Map<Element, unknown>();
    for (const el of document.querySelectorAll(selector)) {
      const key = Object.keys(el).find((k) => k.startsWith('__reactProps$'));
      // Loud, never a silent pass: a React DOM that keeps its props elsewhere needs this probe updated.
      if (!key) throw new Error(`React DOM keeps no __reactProps$ on ${selector}: update markRenders for this React version`);
      marks.set(el, (el as unknown as Record<string, unknown>)[key]);
    }
    (window as unknown as { __spillwayRenderMarks: Map<Element, unknown> }).__spillwayRenderMarks = marks;
    return marks.size;
  }, selector);
}

/**
 * The elements (by `data-testid`) that `markRenders` marked and that were rendered again since, or
 * replaced, or are new.
 */
export async function renderedSince(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const marks = (window as unknown as { __spillwayRenderMarks?: Map<Element, unknown> }).__spillwayRenderMarks;
    if (!marks) throw new Error('markRenders first');
    const rendered: string[] = [];
    for (const el of document.querySelectorAll(selector)) {
      const key = Object.keys(el).find((k) => k.startsWith('__reactProps$'));
      const props = key ? (el as unknown as Record<string, unknown>)[key] : undefined;
      if (!marks.has(el) || marks.get(el) !== props) rendered.push(el.getAttribute('data-testid') ?? el.outerHTML.slice(0, 80));
    }
    return rendered;
  }, selector);
}
