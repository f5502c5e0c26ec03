import { describe, expect, it } from 'vitest';
import { createPublicUrl, listenOrigin } from './public-url.ts';

describe('listenOrigin', () => {
  it('names the address listened on, 127.0.0.1 for a wildcard one, an IPv6 address in brackets', () => {
    expect(listenOrigin('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(listenOrigin('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(listenOrigin('::', 3000)).toBe('http://127.0.0.1:3000');
    expect(listenOrigin('::1', 3000)).toBe('http://[::1]:3000');
    expect(listenOrigin('shop.local', 80)).toBe('http://shop.local:80');
  });
});

describe('createPublicUrl', () => {
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };

  it('is the publicUrl given, whatever listen() does', () => {
    const url = createPublicUrl({ publicUrl: 'https://shop.example/spillway', basePath: '/spillway', logger: quiet });
    url.listening('0.0.0.0', 3000);
    expect(url.base).toBe('https://shop.example/spillway');
  });

  it('without one, is where listen() serves, basePath included; before that it throws not_configured', () => {
    const url = createPublicUrl({ publicUrl: undefined, basePath: '/spillway', logger: quiet });
    const base = url.base as () => string;
    expect(base).toThrow(expect.objectContaining({ code: 'not_configured', status: 501 }));
    url.listening('0.0.0.0', 3000);
    expect(base()).toBe('http://127.0.0.1:3000/spillway');
  });
});
