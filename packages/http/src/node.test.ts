import { describe, expect, it } from 'vitest';
import { createFetchHandler } from './app.ts';
import { serve } from './node.ts';
import { FAKE_KEY, createFakeEngine } from './testing/fake-engine.ts';

describe('serve', () => {
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
});
