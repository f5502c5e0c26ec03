import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

describe('the designer under /designer/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-designer-'));
  let fixture: RunningFixture;
  beforeAll(async () => {
    fixture = await startServer({}, { designerDir: dir });
  });
  afterAll(async () => {
    await fixture.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says how to build it while there is no build', async () => {
    const res = await fetch(`${fixture.url}/designer/`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('--filter @spillway/designer build');
  });

  it('serves the built page and its hashed assets, and redirects /designer to /designer/', async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Spillway designer</title>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    const page = await fetch(`${fixture.url}/designer/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const asset = await fetch(`${fixture.url}/designer/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    const bare = await fetch(`${fixture.url}/designer`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/designer/']);
    expect((await fetch(`${fixture.url}/designer/nope.js`)).status).toBe(404);
    // The API is untouched.
    expect((await fetch(`${fixture.url}/health`)).status).toBe(200);
  });
});

// Regression: Hono's serveStatic, made at the start over a designer that was never built, printed
// "serveStatic: root path '…/apps/designer/dist' is not found" on stderr, a non-JSON line in the
// log of every server and CLI command.
describe('the designer without a build folder', () => {
  it('prints nothing at the start or on a request, and /designer/ says how to build it', async () => {
    const missing = join(tmpdir(), `spillway-no-designer-${process.pid}-${Date.now()}`);
    const printed = vi.spyOn(console, 'error');
    const warned = vi.spyOn(console, 'warn');
    const fixture = await startServer({}, { designerDir: missing });
    try {
      const res = await fetch(`${fixture.url}/designer/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('--filter @spillway/designer build');
      const lines = [...printed.mock.calls, ...warned.mock.calls].map((args) => args.join(' '));
      expect(lines.filter((line) => line.includes('serveStatic'))).toEqual([]);
    } finally {
      printed.mockRestore();
      warned.mockRestore();
      await fixture.close();
    }
  });
});
