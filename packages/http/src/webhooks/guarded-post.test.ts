import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import { guardedPost, UrlRefusedError } from './guarded-post.ts';

interface Hit {
  path: string;
  method: string;
  body: string;
}

let server: Server;
let base: string;
let hits: Hit[];
let handle: (req: IncomingMessage, path: string) => { status: number; location?: string };

beforeEach(async () => {
  hits = [];
  handle = () => ({ status: 204 });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ path, method: req.method ?? '', body });
      const answer = handle(req, path);
      res.writeHead(answer.status, answer.location ? { location: answer.location } : {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = { body: '{"a":1}', headers: { 'content-type': 'application/json' }, clock: createFakeClock() };

describe('guardedPost', () => {
  it('posts the body and answers the status', async () => {
    expect(await guardedPost(`${base}/hook`, { ...post, allowPrivateUrls: true })).toEqual({ status: 204, url: `${base}/hook` });
    expect(hits).toEqual([{ path: '/hook', method: 'POST', body: '{"a":1}' }]);
  });

  it('refuses a loopback IP literal without calling it', async () => {
    const error = await guardedPost(`${base}/hook`, post).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlRefusedError);
    expect((error as Error).message).toMatch(/loopback/);
    expect(hits).toEqual([]);
  });

  it('refuses private, link-local and IPv6 literals', async () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://[fd00::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
    ]) {
      await expect(guardedPost(url, post)).rejects.toBeInstanceOf(UrlRefusedError);
    }
  });

  it('names the kind of address with its article', async () => {
    for (const [url, named] of [
      ['http://0.0.0.0/', 'an unspecified address'],
      ['http://[fd00::1]/', 'a unique-local address'],
      ['http://10.0.0.1/', 'a private address'],
    ]) {
      await expect(guardedPost(url!, post)).rejects.toThrow(`refused to call ${named};`);
    }
  });

  it('refuses a host when any of its resolved addresses is private', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const error = await guardedPost('http://hooks.example.test/', { ...post, resolve }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlRefusedError);
    expect((error as Error).message).toContain('hooks.example.test: it resolves to a non-public address');
    // The resolved address is never echoed: it would map internal DNS for the caller.
    expect((error as Error).message).not.toContain('10.0.0.7');
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const port = (server.address() as AddressInfo).port;
    await expect(guardedPost(`http://localhost:${port}/hook`, post)).rejects.toBeInstanceOf(UrlRefusedError);
    expect(hits).toEqual([]);
  });

  it('connects to the checked address of an allowed host name', async () => {
    const port = (server.address() as AddressInfo).port;
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const allowAddress = (address: string) => address === '127.0.0.1';
    const answer = await guardedPost(`http://receiver.test:${port}/ok`, { ...post, resolve, allowAddress });
    expect(answer.status).toBe(204);
    expect(hits.map((h) => h.path)).toEqual(['/ok']);
  });

  it('follows redirects by hand, posting again, at most 3', async () => {
    handle = (_req, path) => {
      const n = Number(/^\/r(\d)$/.exec(path)?.[1] ?? -1);
      return n > 0 ? { status: 307, location: `/r${n - 1}` } : { status: 200 };
    };
    expect(await guardedPost(`${base}/r3`, { ...post, allowPrivateUrls: true })).toEqual({ status: 200, url: `${base}/r0` });
    expect(hits.map((h) => `${h.method} ${h.path} ${h.body}`)).toEqual([
      'POST /r3 {"a":1}',
      'POST /r2 {"a":1}',
      'POST /r1 {"a":1}',
      'POST /r0 {"a":1}',
    ]);

    hits = [];
    await expect(guardedPost(`${base}/r4`, { ...post, allowPrivateUrls: true })).rejects.toThrow(/more than 3 redirects/);
    expect(hits).toHaveLength(4);
  });

  it('follows a 308 as a 307: the same POST with its body', async () => {
    handle = (_req, path) => (path === '/old' ? { status: 308, location: '/new' } : { status: 201 });
    expect(await guardedPost(`${base}/old`, { ...post, allowPrivateUrls: true })).toEqual({ status: 201, url: `${base}/new` });
    expect(hits.map((h) => `${h.method} ${h.path} ${h.body}`)).toEqual(['POST /old {"a":1}', 'POST /new {"a":1}']);
  });

  it('does not follow a 301, 302 or 303, which ask for a GET without the body: it answers where it points, calling nothing there', async () => {
    for (const status of [301, 302, 303]) {
      hits = [];
      handle = (_req, path) => (path === '/hook' ? { status, location: '/see-other?x=1' } : { status: 200 });
      expect(await guardedPost(`${base}/hook`, { ...post, allowPrivateUrls: true })).toEqual({
        status,
        url: `${base}/hook`,
        location: `${base}/see-other?x=1`,
      });
      expect(hits.map((h) => `${h.method} ${h.path}`)).toEqual(['POST /hook']);
    }
    // Not a redirect followed: an absolute location stays as given, even a refused one.
    handle = () => ({ status: 303, location: 'http://169.254.169.254/latest/meta-data' });
    expect(await guardedPost(`${base}/hook`, { ...post, allowPrivateUrls: true })).toMatchObject({
      status: 303,
      location: 'http://169.254.169.254/latest/meta-data',
    });
    // A 300 or 304 is an answer like any other, without a location.
    handle = () => ({ status: 300, location: '/choices' });
    expect(await guardedPost(`${base}/hook`, { ...post, allowPrivateUrls: true })).toEqual({ status: 300, url: `${base}/hook` });
  });

  it('checks every redirect target: a redirect to a private address is refused', async () => {
    const port = (server.address() as AddressInfo).port;
    handle = () => ({ status: 307, location: 'http://169.254.169.254/latest/meta-data' });
    const allowAddress = (address: string) => address === '127.0.0.1';
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const error = await guardedPost(`http://receiver.test:${port}/`, { ...post, resolve, allowAddress }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlRefusedError);
    expect((error as Error).message).toMatch(/link-local/);
    expect(hits).toHaveLength(1);
  });

  it('refuses schemes other than http and https, also on redirect', async () => {
    await expect(guardedPost('ftp://example.com/x', post)).rejects.toBeInstanceOf(UrlRefusedError);
    await expect(guardedPost('not a url', post)).rejects.toBeInstanceOf(UrlRefusedError);
    handle = () => ({ status: 308, location: 'file:///etc/passwd' });
    await expect(guardedPost(`${base}/`, { ...post, allowPrivateUrls: true })).rejects.toBeInstanceOf(UrlRefusedError);
  });

  it('times out on the clock when the receiver does not answer', async () => {
    const clock = createFakeClock();
    handle = () => ({ status: 200 });
    server.removeAllListeners('request');
    server.on('request', () => {
      // Never answers; the fake clock's timeout ends the call.
      void clock.advance(10_000);
    });
    await expect(guardedPost(`${base}/slow`, { ...post, clock, allowPrivateUrls: true })).rejects.toThrow(/no answer within 10000 ms/);
  });
});
