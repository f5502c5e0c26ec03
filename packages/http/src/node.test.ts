import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createFetchHandler } from './app.ts';
import { serve } from './node.ts';
import { FAKE_KEY, createFakeEngine } from './testing/fake-engine.ts';

describe('serve', () => {
  it('once closing, answers the request in flight on a kept-alive connection with Connection: close, then closes', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    const server = await serve({
      fetch: async () => {
        arrived();
        await held;
        return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
      },
      port: 0,
    });
    const agent = new Agent({ keepAlive: true });
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end();
    });
    await inFlight;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    // The answer in flight holds the close open: nothing is cut short.
    expect(closed).toBe(false);
    release();
    expect(await answer).toEqual({ status: 200, connection: 'close' });
    await closing;
    expect(closed).toBe(true);
    agent.destroy();
  });

  it('once closing, answers the requests in flight on every kept-alive connection with Connection: close', async () => {
    let gate: Promise<void> = Promise.resolve();
    let arrivals = 0;
    const server = await serve({
      fetch: async () => {
        arrivals++;
        await gate;
        return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
      },
      port: 0,
    });
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    const ask = (agent: Agent) =>
      new Promise<string | undefined>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers.connection));
        });
        req.on('error', reject);
        req.end();
      });
    // Each connection answers one request and stays open, then carries a second one, held.
    expect(await Promise.all(agents.map(ask))).toEqual(['keep-alive', 'keep-alive']);
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const answers = Promise.all(agents.map(ask));
    await vi.waitFor(() => expect(arrivals).toBe(4));
    const closing = server.close();
    release();
    expect(await answers).toEqual(['close', 'close']);
    await closing;
    for (const agent of agents) agent.destroy();
  });

  it('listens on a free port when given 0 and speaks HTTP', async () => {
    const server = await serve({ fetch: createFetchHandler({ engine: createFakeEngine(), defaultMetrics: false }), port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      const health = await fetch(`http://127.0.0.1:${server.port}/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const sent = await fetch(`http://127.0.0.1:${server.port}/bat/messagelist`, {
        method: 'POST',
        headers: { 'X-Authorization-Key': FAKE_KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [] }),
      });
      expect(sent.status).toBe(200);
      expect(sent.headers.get('ratelimit-remaining')).toBe('149');
    } finally {
      await server.close();
    }
  });

  it('carries the rate-limit headers over a real socket on an answer and on a refusal, with Retry-After', async () => {
    const handler = createFetchHandler({
      engine: createFakeEngine(),
      defaultMetrics: false,
      rateLimits: { data: { perSecond: 1, burst: 1 } },
    });
    const server = await serve({ fetch: handler, port: 0 });
    try {
      const read = () => fetch(`http://127.0.0.1:${server.port}/bat/balance`, { headers: { 'X-Authorization-Key': FAKE_KEY } });
      const first = await read();
      expect(first.status).toBe(200);
      expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['1', '0']);
      expect(first.headers.get('ratelimit-policy')).toBe('1;w=1;burst=1');
      const refused = await read();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
      expect([refused.headers.get('ratelimit-remaining'), refused.headers.get('retry-after')]).toEqual(['0', '1']);
      expect(refused.headers.get('content-type')).toContain('application/json');
    } finally {
      await server.close();
    }
  });

  it('answers 413 over a real socket for an oversized body', async () => {
    const server = await serve({
      fetch: createFetchHandler({ engine: createFakeEngine(), defaultMetrics: false, maxBodyBytes: 64 }),
      port: 0,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/bat/messagelist`, {
        method: 'POST',
        headers: { 'X-Authorization-Key': FAKE_KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [], pad: 'x'.repeat(500) }),
      });
      expect(res.status).toBe(413);
    } finally {
      await server.close();
    }
  });

  it('counts a chunked body (no Content-Length) while reading it: 413 past the limit, accepted under it', async () => {
    const engine = createFakeEngine();
    const server = await serve({ fetch: createFetchHandler({ engine, defaultMetrics: false, maxBodyBytes: 200 }), port: 0 });
    const post = (chunks: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            method: 'POST',
            path: '/bat/messagelist',
            headers: { 'X-Authorization-Key': FAKE_KEY, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    try {
      const big = await post(['{"messages":[],"pad":"', 'x'.repeat(150), 'x'.repeat(150), '"}']);
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toMatchObject({ error: 'payload_too_large', status: 413 });
      expect(engine.calls.sends).toHaveLength(0);
      const small = await post(['{"messages":[],', '"pad":"xx"}']);
      expect(small.status).toBe(200);
      expect(engine.calls.sends).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('answers headers over 16 KiB with a JSON 431, and a malformed request with a JSON 400', async () => {
    const server = await serve({ fetch: createFetchHandler({ engine: createFakeEngine(), defaultMetrics: false }), port: 0 });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/health`, { headers: { 'x-padding': 'x'.repeat(17 * 1024) } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ error: 'headers_too_large', message: 'Request headers exceed 16384 bytes', status: 431 });

      const raw = await rawRequest(server.port, 'NOT A REQUEST\r\n\r\n');
      expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'bad_request', status: 400 });

      // The server goes on answering.
      expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}
