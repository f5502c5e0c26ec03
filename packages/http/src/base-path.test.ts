import { describe, expect, it } from 'vitest';
import { normalizeBasePath, pathBelow, withBasePath } from './base-path.ts';

describe('normalizeBasePath', () => {
  it('gives one form: a leading slash, no trailing one, empty for the root', () => {
    expect(normalizeBasePath(undefined)).toBe('');
    expect(normalizeBasePath('/')).toBe('');
    expect(normalizeBasePath('spillway/')).toBe('/spillway');
    expect(normalizeBasePath('/api/spillway//')).toBe('/api/spillway');
  });

  it('refuses a prefix with a query or fragment', () => {
    expect(() => normalizeBasePath('/spillway?x=1')).toThrow(TypeError);
  });

  // Regression: these were taken as they came ('/http://shop.test/api', '//api//v1', '/my api'),
  // and a prefix no request path can match left the whole API answering 404; a number threw
  // "(basePath ?? "").trim is not a function".
  it('refuses what no request path matches, naming the option and the value', () => {
    for (const bad of ['http://shop.test/api', '//api//v1', '/api/./v1', '/../api', '/my api', '/späť', '/a#b']) {
      expect(() => normalizeBasePath(bad), bad).toThrow(TypeError);
      expect(() => normalizeBasePath(bad), bad).toThrow(`basePath must be a path such as '/spillway'`);
    }
    expect(() => normalizeBasePath('https://shop.test/spillway')).toThrow(/the path only: the origin is the host's/);
    expect(() => normalizeBasePath(5 as unknown as string)).toThrow(/basePath must be a path such as '\/spillway', got number 5/);
    expect(normalizeBasePath(" /api/v1.2/~team's:one/ ")).toBe("/api/v1.2/~team's:one");
  });
});

describe('pathBelow', () => {
  it('takes the prefix off whole segments only', () => {
    expect(pathBelow('/spillway/bat/balance', '/spillway')).toBe('/bat/balance');
    expect(pathBelow('/spillway', '/spillway')).toBe('/');
    expect(pathBelow('/spillwayx/bat', '/spillway')).toBeNull();
    expect(pathBelow('/bat', '')).toBe('/bat');
  });
});

describe('withBasePath', () => {
  const echo = withBasePath(async (req) => Response.json({ url: req.url, method: req.method, body: await req.text() }), '/spillway');

  it('hands the request on with the prefix taken off, query, method and body kept', async () => {
    const res = await echo(new Request('http://shop.test/spillway/bat/message/7?x=1', { method: 'PATCH', body: '{"text":"hi"}' }));
    expect(await res.json()).toEqual({ url: 'http://shop.test/bat/message/7?x=1', method: 'PATCH', body: '{"text":"hi"}' });
  });

  it('answers the JSON 404 outside the prefix', async () => {
    const res = await echo(new Request('http://shop.test/other'));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', message: 'No route for GET /other', status: 404 });
  });
});
