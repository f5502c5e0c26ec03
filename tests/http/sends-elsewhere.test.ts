import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { answerSend, createNodeHasher, createSpillway, serve } from '@spillway/http';
import type { RunningServer, SendAnswer, Spillway } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

// `sendsElsewhere` (the reference server's extra HTTP threads): every send an app takes is parsed
// and written where acceptances are written, whichever of its routes took it (the direct route for
// cached credentials, the app's own route for the first request of a credential), after the app's
// own authentication, rate limit and content-type check. Here the "writer" is a second Spillway
// over the same SQLite file, as the reference server's main thread is.

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const basic = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const body = (text: string) => JSON.stringify({ messages: [{ from: 'Shop', to: '99900000001', type: 'sms', text }] });

describe('an app whose sends are answered elsewhere', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-sends-elsewhere-'));
  const file = join(dir, 'spillway.db');
  let writer: Spillway;
  let thread: Spillway;
  let server: RunningServer;
  let key: string;
  /** What the writer was asked: the account and the body's text. */
  const asked: Array<{ accountId: number; body: string }> = [];
  /** An answer to give instead of the writer's (a busy database, say). */
  let instead: SendAnswer | undefined;

  beforeAll(async () => {
    const spillway = (sendsElsewhere?: (accountId: number, text: string) => Promise<SendAnswer>) =>
      createSpillway({
        storage: createSqliteStorage({ filename: file }),
        channels: [createSimulator({ latencyMs: 0 })],
        hasher: createNodeHasher({ N: 2 ** 12 }),
        logger: silent,
        workers: false,
        ...(sendsElsewhere ? { http: { sendsElsewhere } } : {}),
      });
    writer = spillway();
    await writer.start();
    const account = await writer.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 100 });
    await writer.engine.accounts.approveAlphaName(account.id, 'Shop');
    key = (await writer.engine.accounts.createKey(account.id, 'test')).key;
    thread = spillway(async (accountId, text) => {
      asked.push({ accountId, body: text });
      return instead ?? answerSend({ engine: writer.engine, logger: silent }, accountId, text);
    });
    await thread.start();
    server = await serve({ fetch: thread.fetch, direct: thread.direct, port: 0 });
  });

  afterAll(async () => {
    await server.close();
    await thread.stop();
    await writer.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (auth: Record<string, string>, text: string, contentType = 'application/json') =>
    fetch(`http://127.0.0.1:${server.port}/bat/messagelist`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...auth },
      body: body(text),
    });

  it('sends there from both routes: the first request of a credential (the app’s route) and the next ones (the direct route)', async () => {
    const before = asked.length;
    // A key and a password the thread has not seen yet: the app's own route takes them; then the direct route.
    for (const [auth, text] of [
      [{ 'x-authorization-key': key }, 'key 1'],
      [{ 'x-authorization-key': key }, 'key 2'],
      [{ authorization: basic }, 'password 1'],
      [{ authorization: basic }, 'password 2'],
    ] as const) {
      const res = await send(auth, text);
      expect(res.status, text).toBe(200);
      const sent = (await res.json()) as { messages: Array<{ text: string }> };
      expect(sent.messages[0]!.text).toBe(text);
    }
    expect(asked.slice(before).map((a) => JSON.parse(a.body) as unknown)).toEqual(
      ['key 1', 'key 2', 'password 1', 'password 2'].map((text) => JSON.parse(body(text)) as unknown),
    );
  });

  it('answers the writer’s answer as it is, Retry-After included, and checks the content type itself', async () => {
    // A key the thread has not seen (the app's route), then one it has (the direct route).
    const account = await writer.engine.accounts.ensure({ login: 'shop', password: 'shop-password' });
    const newKey = (await writer.engine.accounts.createKey(account.id, 'second')).key;
    instead = { status: 503, body: JSON.stringify({ error: 'unavailable', message: 'busy', status: 503 }), retryAfter: '1' };
    try {
      for (const auth of [{ 'x-authorization-key': newKey }, { 'x-authorization-key': key }]) {
        const res = await send(auth, 'busy');
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ error: 'unavailable', message: 'busy', status: 503 });
      }
    } finally {
      instead = undefined;
    }
    const before = asked.length;
    const refused = await send({ 'x-authorization-key': key }, 'plain', 'text/plain');
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ error: 'unsupported_media_type' });
    expect(asked.length).toBe(before);
  });
});
