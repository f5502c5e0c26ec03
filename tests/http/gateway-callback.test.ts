import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStorage } from '@spillway/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startServer, until, type RunningFixture } from '../support/server-fixture.ts';

const SECRET = `whsec_${Buffer.from('gateway-secret-of-the-tests-0123').toString('base64')}`;
let f: RunningFixture;
const dirs: string[] = [];
afterEach(async () => {
  await f?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** POSTs `body` to /gateway-callback signed with `secret`. */
function post(body: unknown, secret = SECRET, id = `msg_${Math.random().toString(36).slice(2)}`) {
  const text = JSON.stringify(body);
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(id, timestamp, text);
  return fetch(`${f.url}/gateway-callback`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body: text,
  });
}

async function sendSilent(): Promise<number> {
  // The simulator never reports on numbers ending in 04: only the gateway's receipt can end them.
  const res = await f.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to: '99900000004', type: 'sms', text: 'hi' }] } });
  const id = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
  await until(
    () => f.call(`/bat/message/${id}`).then((r) => r.json() as Promise<{ extendedStatuses: unknown[] }>),
    (s) => s.extendedStatuses.length > 0,
  );
  return id;
}

const statusOf = async (id: number) => ((await (await f.call(`/bat/message/${id}`)).json()) as { deliverystatus: string }).deliverystatus;

describe('POST /gateway-callback', () => {
  it('stores signed receipts before answering, and the workers apply them to their messages', async () => {
    f = await startServer({ SPILLWAY_GATEWAY_SECRET: SECRET });
    const [a, b] = [await sendSilent(), await sendSilent()];
    const res = await post({
      receipts: [
        { messageId: a, step: 0, status: 'delivered' },
        { messageId: b, step: 0, status: 'rejected', error: 'blocked by the operator' },
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 2 });
    expect(
      await until(
        () => statusOf(a),
        (s) => s === 'delivered',
      ),
    ).toBe('delivered');
    expect(
      await until(
        () => statusOf(b),
        (s) => s !== 'processing',
      ),
    ).toBe('permanenterror');
    const record = (await (await f.call(`/bat/message/${b}`)).json()) as {
      extendedStatuses: Array<{ status: string; error: string | null }>;
    };
    expect(record.extendedStatuses.at(-1)).toMatchObject({ status: 'Failed', error: 'permanent: blocked by the operator' });
  });

  it('keeps a receipt whose text holds U+0000, with U+FFFD in its place, instead of refusing it', async () => {
    f = await startServer({ SPILLWAY_GATEWAY_SECRET: SECRET });
    const id = await sendSilent();
    const res = await post({ receipts: [{ messageId: id, step: 0, status: 'rejected', error: 'blocked\u0000here' }] });
    expect(res.status).toBe(200);
    expect(
      await until(
        () => statusOf(id),
        (s) => s !== 'processing',
      ),
    ).toBe('permanenterror');
    const record = (await (await f.call(`/bat/message/${id}`)).json()) as { extendedStatuses: Array<{ error: string | null }> };
    expect(record.extendedStatuses.at(-1)).toMatchObject({ error: 'permanent: blocked\uFFFDhere' });
  });

  it('refuses a missing or wrong signature and bad receipts with clear JSON errors, and 404s without a secret', async () => {
    f = await startServer({ SPILLWAY_GATEWAY_SECRET: SECRET });
    const id = await sendSilent();
    const wrong = await post(
      { receipts: [{ messageId: id, step: 0, status: 'delivered' }] },
      `whsec_${Buffer.from('another-secret-entirely-0123456').toString('base64')}`,
    );
    expect(wrong.status).toBe(401);
    const unsigned = await fetch(`${f.url}/gateway-callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ error: 'unauthorized' });
    const bad = await post({
      receipts: [
        { messageId: id, status: 'delivered' },
        { messageId: id, step: 0, status: 'lost' },
      ],
    });
    expect(bad.status).toBe(400);
    const details = ((await bad.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path);
    expect(details).toEqual(expect.arrayContaining(['receipts[0]', 'receipts[1].status']));
    expect(await statusOf(id)).toBe('processing');
    await f.close();

    f = await startServer();
    expect((await post({ receipts: [{ messageId: id, step: 0, status: 'delivered' }] })).status).toBe(404);
  });

  it('refuses receipts for a message that does not exist or a step it does not have, storing none of the request', async () => {
    f = await startServer({ SPILLWAY_GATEWAY_SECRET: SECRET });
    // One SMS without fallbacks: its only step is 0.
    const id = await sendSilent();
    const res = await post({
      receipts: [
        { messageId: id, step: 0, status: 'delivered' },
        { messageId: id, step: 3, status: 'delivered' },
        { messageId: 999_999, step: 0, status: 'delivered' },
      ],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'validation_failed',
      details: [
        { path: 'receipts[1].step', message: `message ${id} has one step, 0` },
        { path: 'receipts[2].messageId', message: 'no message 999999' },
      ],
    });
    // Nothing of the request was stored: the valid receipt waits for the gateway's retry.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const record = (await (await f.call(`/bat/message/${id}`)).json()) as {
      deliverystatus: string;
      extendedStatuses: Array<{ status: string }>;
    };
    expect(record.deliverystatus).toBe('processing');
    expect(record.extendedStatuses.map((e) => e.status)).toEqual(['Sent']);
    // The same through the engine's API.
    await expect(f.server.engine.receive({ messageId: id, step: 1, outcome: 'delivered' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'step' }],
    });
    await expect(f.server.engine.receive({ messageId: 999_999, step: 0, outcome: 'delivered' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('stores a request as one transaction: a database failure midway stores none of it, and the retry stores all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-gateway-'));
    dirs.push(dir);
    const file = join(dir, 'spillway.db');
    // The API role alone: no worker takes receipts from the inbox, so the test reads what was stored.
    f = await startServer({ SPILLWAY_GATEWAY_SECRET: SECRET, SPILLWAY_DB: file, SPILLWAY_ROLE: 'api' });
    const other = createSqliteStorage({ filename: file });
    const { db } = other;
    try {
      const sent = await f.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to: '99900000004', type: 'sms', text: 'hi' }] } });
      const id = ((await sent.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      // The second receipt's write fails inside the database, after the first one's.
      db.exec(`CREATE TRIGGER refuse_boom BEFORE INSERT ON orphan_receipts WHEN NEW.provider_message_id = 'boom'
               BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
      const body = {
        receipts: [
          { messageId: id, step: 0, status: 'delivered' },
          { providerMessageId: 'boom', driver: 'kannel', status: 'delivered' },
        ],
      };
      const failed = await post(body);
      expect(failed.status).toBe(500);
      expect(await failed.json()).toMatchObject({ error: 'internal' });
      const stored = () => ({
        receipts: db.prepare('SELECT message_id FROM receipts').pluck().all(),
        orphans: db.prepare('SELECT provider_message_id FROM orphan_receipts').pluck().all(),
      });
      expect(stored()).toEqual({ receipts: [], orphans: [] });

      db.exec('DROP TRIGGER refuse_boom');
      const retried = await post(body);
      expect(retried.status).toBe(200);
      expect(await retried.json()).toEqual({ accepted: 2 });
      expect(stored()).toEqual({ receipts: [id], orphans: ['boom'] });
    } finally {
      await other.close();
    }
  });
});
