import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '@spillway/core';
import { createHttpApp, createNodeHasher, createSpillway, serve } from '@spillway/http';
import type { HttpOptions } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { Webhook } from 'standardwebhooks';
import { createSimulator } from '@spillway/channels';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/server-fixture.ts';

const quiet = { info() {}, warn() {}, error() {} };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A SQLite file, its engine, and a function serving the HTTP app over it on a real port (its base URL). */
async function busyFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-busy-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'spillway.db');
  // A short busy timeout, so the test does not wait the default 5 s for the lock.
  const storage = createSqliteStorage({ filename: file, busyTimeoutMs: 50 });
  await storage.migrate();
  cleanups.push(() => storage.close());
  const engine = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 1024 }) });
  const serveApp = async (options: Partial<HttpOptions>) => {
    const app = createHttpApp({ engine, defaultMetrics: false, logger: quiet, ...options });
    const server = await serve({ fetch: app.fetch, port: 0 });
    cleanups.push(() => server.close());
    return `http://127.0.0.1:${server.port}`;
  };
  return { file, engine, serveApp };
}

describe('a database too busy to take a request', () => {
  it('answers 503 with Retry-After and writes nothing; the server stays up and takes the retry', async () => {
    const { file, engine, serveApp } = await busyFixture();
    const account = await engine.accounts.create({ login: 'shop', password: 'shop-password' });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    await engine.accounts.topUp(account.id, 10);
    const { key } = await engine.accounts.createKey(account.id);
    const base = await serveApp({});
    const send = () =>
      fetch(`${base}/bat/messagelist`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-authorization-key': key },
        body: JSON.stringify({ messages: [{ from: 'Shop', to: '+999000000100', type: 'sms', text: 'Hi' }] }),
      });

    // Another process holds the write lock.
    const otherStorage = createSqliteStorage({ filename: file });
    cleanups.push(() => otherStorage.close());
    const other = otherStorage.db;
    other.exec('BEGIN IMMEDIATE');
    const busy = await send();
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.json()).toMatchObject({ error: 'unavailable', status: 503 });
    expect((await fetch(`${base}/health`)).status).toBe(200);
    other.exec('ROLLBACK');

    const count = () => (other.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    expect(count()).toBe(0);
    const retried = await send();
    expect(retried.status).toBe(200);
    expect(count()).toBe(1);
  });

  it('answers 503 on public routes that write too (the gateway callback), as the OpenAPI document says', async () => {
    const { file, engine, serveApp } = await busyFixture();
    const secret = `whsec_${Buffer.from('gateway-secret-of-the-tests-0123').toString('base64')}`;
    const base = await serveApp({ gatewaySecret: secret });
    // A message for the receipt to name (a receipt for one that does not exist is a 400).
    const account = await engine.accounts.create({ login: 'shop', password: 'shop-password' });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    await engine.accounts.topUp(account.id, 10);
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '+999000000100', type: 'sms', text: 'Hi' }] });
    const messageId = sent.messages[0]!.messageId;
    const callback = () => {
      const text = JSON.stringify({ receipts: [{ messageId, step: 0, status: 'delivered' }] });
      const id = `msg_${Math.random().toString(36).slice(2)}`;
      const at = new Date();
      return fetch(`${base}/gateway-callback`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, at, text),
        },
        body: text,
      });
    };

    const otherStorage = createSqliteStorage({ filename: file });
    cleanups.push(() => otherStorage.close());
    otherStorage.db.exec('BEGIN IMMEDIATE');
    const busy = await callback();
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    otherStorage.db.exec('ROLLBACK');
    expect((await callback()).status).toBe(200);

    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const unavailable = { $ref: '#/components/responses/ServiceUnavailable' };
    expect(doc.paths['/gateway-callback']!['post']!.responses['503']).toEqual(unavailable);
    expect(doc.paths['/bat/messagelist']!['post']!.responses['503']).toEqual(unavailable);
    // Routes that never reach the storage cannot be busy.
    for (const path of ['/health', '/openapi.json', '/docs']) expect(doc.paths[path]!['get']!.responses['503'], path).toBeUndefined();
  });

  it('has the workers of createSpillway log a busy database as a warning, not an error, and deliver once it is free', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-busy-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'spillway.db');
    const logged: Array<{ level: string; message: string; error?: unknown }> = [];
    const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void logged.push({ level, message, ...meta });
    const spillway = createSpillway({
      storage: createSqliteStorage({ filename: file, busyTimeoutMs: 50 }),
      // The send is answered after 300 ms, while the lock is taken: the round's commit finds it taken.
      channels: [createSimulator({ latencyMs: 300 })],
      hasher: createNodeHasher({ N: 1024 }),
      logger: { info: at('info'), warn: at('warn'), error: at('error') },
    });
    await spillway.start();
    cleanups.push(() => spillway.stop());
    const { engine } = spillway;
    const account = await engine.accounts.create({ login: 'shop', password: 'shop-password', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '+999000000100', type: 'sms', text: 'Hi' }] });

    const otherStorage = createSqliteStorage({ filename: file });
    cleanups.push(() => otherStorage.close());
    otherStorage.db.exec('BEGIN IMMEDIATE');
    const busy = await until(
      async () => logged.filter((l) => l.message === 'database busy: the workers try again'),
      (found) => found.length > 0,
    );
    otherStorage.db.exec('ROLLBACK');
    expect(busy[0]).toMatchObject({ level: 'warn', error: expect.stringMatching(/database is locked/) as unknown });
    const id = sent.messages[0]!.messageId;
    const status = await until(
      async () => (await engine.messages.status(account.id, id)).deliverystatus,
      (s) => s === 'delivered',
    );
    expect(status).toBe('delivered');
    expect(logged.filter((l) => l.level === 'error')).toEqual([]);
  });
});
